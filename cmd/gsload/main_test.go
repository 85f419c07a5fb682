package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
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

// TestPentominoesRequests: the pentominoes scenario's requests are
// Pentominoes positions 2-6 plies in that the engine takes, with budgets
// of 100 ms to 60 s.
func TestPentominoesRequests(t *testing.T) {
	reqs, err := prepare("pentominoes", 7)
	if err != nil || len(reqs) != 200 {
		t.Fatalf("prepare: %d requests, %v", len(reqs), err)
	}
	cfg, _ := polyomino.Preset("pentominoes")
	for _, r := range reqs[:50] {
		var body struct {
			Game     string   `json:"game"`
			Moves    []string `json:"moves"`
			BudgetMs int      `json:"budget_ms"`
		}
		if err := json.Unmarshal(r.body, &body); err != nil || r.path != "/v1/polyomino/analyze" {
			t.Fatalf("%s %s: %v", r.path, r.body, err)
		}
		if _, err := polyomino.NewPosition(cfg, nil, body.Moves, polyomino.DefaultToMove); err != nil || len(body.Moves) < 2 || len(body.Moves) > 6 || body.BudgetMs < 100 || body.BudgetMs > 60000 {
			t.Errorf("%s: %v", r.body, err)
		}
	}
}
