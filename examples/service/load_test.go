package main

import (
	"bytes"
	"context"
	"encoding/json"
	"expvar"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// counter reads one of the service's expvar counters.
func counter(name string) int64 {
	if v, ok := counters.Get(name).(*expvar.Int); ok {
		return v.Value()
	}
	return 0
}

// TestLoad serves the MLP on a loopback port with its real server (serve)
// and drives it with a bounded client: 16 connections, 50 requests each.
// Every request must be answered 200 with the model's output; the test
// reports the latencies, and the allocations of the Kiln part of a request
// (RunInto over pooled tensors), which must be 0.
func TestLoad(t *testing.T) {
	s, _ := mlpServer(t, config{maxConcurrent: 4})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serve(ctx, ln, s.handler()) }()
	url := "http://" + ln.Addr().String() + "/v1/predict"

	clients, perClient := 16, 50
	if testing.Short() {
		clients, perClient = 4, 10
	}
	body, _ := json.Marshal(request{Inputs: [][]float32{input(t, 1)}})
	okBefore, reqBefore := counter("ok"), counter("requests")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 30 * time.Second}
	latencies := make([][]time.Duration, clients)
	errs := make(chan error, clients*perClient)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perClient {
				t0 := time.Now()
				r, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					errs <- err
					continue
				}
				raw, err := io.ReadAll(r.Body)
				r.Body.Close()
				latencies[c] = append(latencies[c], time.Since(t0))
				if err != nil || r.StatusCode != http.StatusOK || !strings.Contains(string(raw), `"shapes":[[1,10]]`) {
					errs <- &statusError{r.StatusCode, string(raw)}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	nerr := 0
	for err := range errs {
		if nerr < 3 {
			t.Error(err)
		}
		nerr++
	}
	all := slices.Concat(latencies...)
	slices.Sort(all)
	pct := func(p int) time.Duration { return all[(len(all)-1)*p/100] }
	s.pool.Put(s.pool.Get()) // keep a warm buffer set for the allocation count
	allocs := testing.AllocsPerRun(50, func() {
		b := s.pool.Get().(*buffers)
		if err := s.run(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		s.pool.Put(b)
	})
	t.Logf("load: %d requests from %d clients in %v (%.0f requests/s), %d errors, latency p50 %v p99 %v; allocations per request in RunInto: %v",
		len(all), clients, elapsed.Round(time.Millisecond), float64(len(all))/elapsed.Seconds(), nerr, pct(50), pct(99), allocs)
	if nerr != 0 {
		t.Errorf("%d of %d requests failed", nerr, clients*perClient)
	}
	if got := counter("ok") - okBefore; got != int64(clients*perClient) {
		t.Errorf("expvar ok counted %d answers, want %d", got, clients*perClient)
	}
	if got := counter("requests") - reqBefore; got != int64(clients*perClient) {
		t.Errorf("expvar requests counted %d, want %d", got, clients*perClient)
	}
	if allocs != 0 && !raceEnabled {
		t.Errorf("RunInto allocates %v times per request, want 0", allocs)
	}
	if st := s.exe.Stats(); st.FramesHeld > 4 {
		t.Errorf("%d frames held, want at most -max-concurrent 4", st.FramesHeld)
	}
	// Connections the client dialed but did not use would hold the
	// shutdown for 5 s (the server counts a new connection as idle only
	// after that): the client closes its idle ones, as a well-behaved
	// client does.
	client.CloseIdleConnections()
	cancel()
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
}

type statusError struct {
	status int
	body   string
}

func (e *statusError) Error() string { return http.StatusText(e.status) + ": " + e.body }

// TestBusyAndTimeouts fills the one slot of a server: a request waits its
// timeout and is answered 503; a run whose deadline has passed is answered
// 504; the expvar counters count both.
func TestBusyAndTimeouts(t *testing.T) {
	s, ts := mlpServer(t, config{maxConcurrent: 1, timeout: 50 * time.Millisecond})
	body, _ := json.Marshal(request{Inputs: [][]float32{input(t, 2)}})
	busy := counter("busy")
	s.slots <- struct{}{} // a request running
	start := time.Now()
	code, _, raw, err := predict(ts.URL, body)
	if err != nil || code != http.StatusServiceUnavailable || !strings.Contains(raw, "busy: 1 requests running, none finished within 50ms") {
		t.Errorf("with the slot taken: status %d, %v, %s; want 503", code, err, raw)
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > 5*time.Second {
		t.Errorf("the busy answer came after %v, want after the 50 ms timeout", d)
	}
	<-s.slots
	if counter("busy") != busy+1 {
		t.Errorf("expvar busy did not count the refusal")
	}

	s.timeout = time.Nanosecond // every run's deadline has passed when it starts
	timeouts := counter("timeouts")
	code, _, raw, err = predict(ts.URL, body)
	if err != nil || code != http.StatusGatewayTimeout && code != http.StatusServiceUnavailable {
		t.Errorf("with a 1 ns timeout: status %d, %v, %s; want 504 (or 503)", code, err, raw)
	}
	if code == http.StatusGatewayTimeout && counter("timeouts") != timeouts+1 {
		t.Errorf("expvar timeouts did not count the timeout")
	}
	r, err := http.Get(ts.URL + "/debug/vars")
	if err != nil {
		t.Fatal(err)
	}
	vars, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if !strings.Contains(string(vars), `"service": {`) || !strings.Contains(string(vars), `"busy":`) {
		t.Errorf("/debug/vars lacks the service counters: %.300s", vars)
	}
}
