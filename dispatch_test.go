package kiln

import (
	"reflect"
	"testing"
)

// TestTablesComplete checks that the table of every runnable level has an
// entry for every kernel the generic level has: a missing one would send
// that level's calls down a nil function (or silently to another level's
// code). Entries that are optional by design (the transpose strip, the
// single-row GEMM kernels) are nil in the generic table too, and those
// listed in optionalEntries may be missing at an assembly level.
func TestTablesComplete(t *testing.T) {
	generic := runnable[len(runnable)-1]
	if generic.level != levelGeneric {
		t.Fatalf("the last runnable table is %s, want generic", generic.level)
	}
	for _, tab := range runnable {
		if err := sameEntries(reflect.ValueOf(generic).Elem(), reflect.ValueOf(tab).Elem(), "kernelTable"); err != "" {
			t.Errorf("%s: %s", tab.level, err)
		}
	}
}

// optionalEntries may be nil at an assembly level although the generic
// level has them: the GEMM driver packs A where a level has no kernels
// reading it in place (NEON), only float32 has packed-rows kernels
// (PackB packs float32), a level without a packing kernel packs B with
// the copy loop (NEON, and float64 everywhere), and one without a
// prefetching kernel leaves the next panel of a prepacked B to the
// hardware (NEON, and float64, which PackB does not pack, everywhere).
var optionalEntries = map[string]bool{
	"kernelTable.sgemm.rowMajor":      true,
	"kernelTable.dgemm.rowMajor":      true,
	"kernelTable.dgemm.packedRows":    true,
	"kernelTable.sgemm.packing":       true,
	"kernelTable.dgemm.packing":       true,
	"kernelTable.sgemm.prefetching":   true,
	"kernelTable.dgemm.prefetching":   true,
	"kernelTable.sgemm.prefetchSteps": true,
	"kernelTable.dgemm.prefetchSteps": true,
}

// sameEntries reports the first entry of want (a struct) that is set while
// the same entry of got is not, looking into struct pointers.
func sameEntries(want, got reflect.Value, path string) string {
	for i := 0; i < want.NumField(); i++ {
		w, g := want.Field(i), got.Field(i)
		name := path + "." + want.Type().Field(i).Name
		if optionalEntries[name] {
			continue
		}
		switch w.Kind() {
		case reflect.Func, reflect.Map, reflect.Slice:
			if !w.IsNil() && g.IsNil() {
				return name + " is missing"
			}
		case reflect.Pointer:
			if w.IsNil() {
				continue
			}
			if g.IsNil() {
				return name + " is missing"
			}
			if w.Elem().Kind() == reflect.Struct {
				if err := sameEntries(w.Elem(), g.Elem(), name); err != "" {
					return err
				}
			}
		}
	}
	return ""
}

// TestActiveTableIsRunnable checks that the active table is one of the
// runnable ones, at the level dispatch reports.
func TestActiveTableIsRunnable(t *testing.T) {
	a := kernels()
	for _, tab := range runnable {
		if tab == a {
			if Features() == "" || a.features() == "" {
				t.Fatalf("level %s has no feature names", a.level)
			}
			return
		}
	}
	t.Fatalf("the active table (level %s) is not one of the runnable tables", a.level)
}
