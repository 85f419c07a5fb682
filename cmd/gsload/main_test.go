package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestWaitReady: the load waits for /readyz (a server building its Teeko
// tables answers 503) and gives up after the wait.
func TestWaitReady(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" || calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	if err := waitReady(srv.URL, time.Minute); err != nil || calls.Load() != 3 {
		t.Errorf("waitReady: %v after %d calls, want ready at the third", err, calls.Load())
	}
	never := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer never.Close()
	if err := waitReady(never.URL, 300*time.Millisecond); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("waitReady on a server never ready: %v", err)
	}
}
