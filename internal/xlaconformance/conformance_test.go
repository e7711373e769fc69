package xlaconformance

import (
	"bufio"
	"flag"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

var verbose = flag.Bool("conformance.v", false, "list every failing case and why")

// readFloors reads floors.txt: one `suite passed` line each, # comments.
func readFloors(t *testing.T) map[string]int {
	f, err := os.Open("floors.txt")
	if err != nil {
		t.Fatalf("floors: %v", err)
	}
	defer f.Close()
	floors := map[string]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 2 {
			t.Fatalf("floors.txt:%d: expected `suite passed`, found %q", line, text)
		}
		n, err := strconv.Atoi(fields[1])
		if err != nil || n < 0 {
			t.Fatalf("floors.txt:%d: expected a count of passed cases, found %q", line, fields[1])
		}
		floors[fields[0]] = n
	}
	return floors
}

// TestConformance runs every suite over the visible half of XLA's test
// vectors and fails when a suite passes fewer cases than its floor.
func TestConformance(t *testing.T) {
	dir, err := DataDir()
	if err != nil {
		t.Skip(err)
	}
	floors := readFloors(t)
	suites := Suites()
	for name := range floors {
		found := false
		for _, s := range suites {
			found = found || s.Name == name
		}
		if !found {
			t.Errorf("floors.txt names suite %q, which no file registers", name)
		}
	}
	for _, s := range suites {
		t.Run(s.Name, func(t *testing.T) {
			r, err := Run(s, dir, runtime.GOMAXPROCS(0))
			if err != nil {
				t.Fatal(err)
			}
			t.Log(r.String())
			if *verbose {
				for _, f := range r.Failures {
					t.Logf("FAIL %s: %s", f.ID, f.Why)
				}
			}
			floor, ok := floors[s.Name]
			if !ok {
				t.Errorf("%s: no floor in floors.txt (passed %d)", s.Name, r.Passed)
				return
			}
			if r.Passed < floor {
				for _, f := range r.Failures {
					t.Logf("FAIL %s: %s", f.ID, f.Why)
				}
				t.Errorf("%s: %d passed, below its floor of %d", s.Name, r.Passed, floor)
			}
		})
	}
}
