package xlaconformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"sync"
	"time"
)

// Case is one test vector: its stable id and its JSON object as the data
// file holds it.
type Case struct {
	ID  string
	Raw json.RawMessage
}

// Suite is a set of cases read from one data file and the check each
// selected case must pass.
type Suite struct {
	// Name is the suite's name as reported (`Name: passed/total`) and as
	// floors.txt refers to it.
	Name string
	// File is the data file the cases come from, relative to the data
	// directory.
	File string
	// Select reports whether a case belongs to the suite; nil selects every
	// case of the file.
	Select func(raw json.RawMessage) bool
	// Check runs one case: nil means it passed, ErrSkip that it does not
	// apply (not counted), any other error says why it failed.
	Check func(c Case) error
	// Timeout bounds one case; zero means DefaultTimeout.
	Timeout time.Duration
}

// ErrSkip is returned by a suite's Check for a case the suite does not count.
var ErrSkip = errors.New("not applicable")

// DefaultTimeout bounds the time one case may take before it is counted as
// a failure (a hang is a failure, not a stall of the whole run).
const DefaultTimeout = 20 * time.Second

var (
	registryMu sync.Mutex
	registry   = map[string]Suite{}
)

// Register adds a suite; it panics if the name is taken (a programming
// error, found when the package is first tested).
func Register(s Suite) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[s.Name]; dup {
		panic("xlaconformance: suite " + s.Name + " registered twice")
	}
	registry[s.Name] = s
}

// Suites returns the registered suites ordered by name.
func Suites() []Suite {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]Suite, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Failure is one case that did not pass, and why.
type Failure struct {
	ID  string
	Why string
}

// Result is the outcome of one suite.
type Result struct {
	Suite    string
	Passed   int
	Total    int
	Failures []Failure
}

// String is the suite's summary line, `suite: passed/total (rate %)`.
func (r Result) String() string {
	rate := 0.0
	if r.Total > 0 {
		rate = 100 * float64(r.Passed) / float64(r.Total)
	}
	return fmt.Sprintf("%s: %d/%d (%.1f %%)", r.Suite, r.Passed, r.Total, rate)
}

// DataDir returns the directory of XLA's test vectors: $KILN_XLA_TESTS, or
// shared/xla-tests/data in a parent of the working directory's module root.
// It returns an error saying where it looked when there is none.
func DataDir() (string, error) {
	if d := os.Getenv("KILN_XLA_TESTS"); d != "" {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return "", fmt.Errorf("KILN_XLA_TESTS=%s is not a directory", d)
		}
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	var looked []string
	for dir := wd; ; dir = filepath.Dir(dir) {
		cand := filepath.Join(dir, "shared", "xla-tests", "data")
		looked = append(looked, cand)
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand, nil
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	return "", fmt.Errorf("no XLA test data: set KILN_XLA_TESTS or place shared/xla-tests/data above the checkout (looked in %d places, up to %s)", len(looked), looked[len(looked)-1])
}

// LoadCases reads the cases of one data file.
func LoadCases(dir, file string) ([]Case, error) {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return nil, err
	}
	var doc struct {
		Cases []json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	out := make([]Case, len(doc.Cases))
	for i, raw := range doc.Cases {
		var id struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(raw, &id)
		if id.ID == "" {
			id.ID = fmt.Sprintf("%s#%d", file, i)
		}
		out[i] = Case{ID: id.ID, Raw: raw}
	}
	return out, nil
}

// Run checks every selected case of s, workers at a time, from the data in
// dir. A case that panics or outlives its timeout fails; the run goes on.
func Run(s Suite, dir string, workers int) (Result, error) {
	cases, err := LoadCases(dir, s.File)
	if err != nil {
		return Result{Suite: s.Name}, err
	}
	var selected []Case
	for _, c := range cases {
		if s.Select == nil || s.Select(c.Raw) {
			selected = append(selected, c)
		}
	}
	timeout := s.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	errs := make([]error, len(selected))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = checkOne(s.Check, selected[i], timeout)
			}
		}()
	}
	for i := range selected {
		next <- i
	}
	close(next)
	wg.Wait()
	r := Result{Suite: s.Name}
	for i, c := range selected {
		switch {
		case errors.Is(errs[i], ErrSkip):
			continue
		case errs[i] == nil:
			r.Passed++
		default:
			r.Failures = append(r.Failures, Failure{ID: c.ID, Why: errs[i].Error()})
		}
		r.Total++
	}
	return r, nil
}

// checkOne runs check on c, turning a panic into a failure that carries the
// panic's value and stack, and a run past timeout into a failure.
func checkOne(check func(Case) error, c Case, timeout time.Duration) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("PANIC: %v\n%s", p, debug.Stack())
			}
		}()
		done <- check(c)
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(timeout):
		return fmt.Errorf("timed out after %v", timeout)
	}
}
