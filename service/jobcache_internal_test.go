package service

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service/cache"
)

// TestJobAnswerKeepsBetter: a finished job's answer does not replace a
// cached answer that knows more (a review found a 20 s all_moves request's
// 613 moves with plies replaced by a job's 608), and replaces one that
// knows less.
func TestJobAnswerKeepsBetter(t *testing.T) {
	c := cache.NewMemory(1<<20, time.Minute)
	job := PolyominoAnalyzeJob{Search: &Searcher{Loader: cache.NewLoader(c, time.Minute)}}
	ctx := context.Background()
	plies := func(n int) *int { return &n }
	answer := func(timed int) PolyominoAnswer {
		a := PolyominoAnswer{Outcome: "win", Proven: true, Value: 1, BestComplete: true, BestMoves: []string{"I:a1,a2,a3,a4,a5"}, Plies: plies(5)}
		for i := range 3 {
			m := PolyominoMove{Move: []string{"I:a1,a2,a3,a4,a5", "L:a1,a2,a3,a4,b4", "P:a1,b1,a2,b2,a3"}[i], Outcome: "loss", Proven: true, Value: -1}
			if i == 0 {
				m.Outcome, m.Value = "win", 1
			}
			if i < timed {
				m.Plies = plies(4)
			}
			a.Moves = append(a.Moves, m)
		}
		return a
	}
	held := func() int {
		raw, ok, err := c.Get(ctx, "k")
		var a PolyominoAnswer
		if err != nil || !ok || json.Unmarshal(raw, &a) != nil {
			t.Fatalf("cache: %v %v", ok, err)
		}
		n := 0
		for _, m := range a.Moves {
			if m.Plies != nil {
				n++
			}
		}
		return n
	}
	raw, _ := json.Marshal(answer(3))
	if err := c.Set(ctx, "k", raw, time.Minute); err != nil {
		t.Fatal(err)
	}
	job.cacheAnswer(ctx, "k", answer(2))
	if n := held(); n != 3 {
		t.Errorf("after a job that knew less: %d moves with plies cached, want the 3 held", n)
	}
	raw, _ = json.Marshal(answer(1))
	_ = c.Set(ctx, "k", raw, time.Minute)
	job.cacheAnswer(ctx, "k", answer(2))
	if n := held(); n != 2 {
		t.Errorf("after a job that knew more: %d moves with plies cached, want its 2", n)
	}
	// A job stopped at its first win is kept without its units' summed
	// time, which would make a request need twice that to complete its
	// best moves (completeNeed).
	partial := PolyominoAnswer{Outcome: "win", Proven: true, Value: 1, BestMoves: []string{"I:a1,a2,a3,a4,a5"}, ElapsedNs: int64(900 * time.Millisecond)}
	if !partial.partial() {
		t.Fatal("not a partial answer")
	}
	job.cacheAnswer(ctx, "p", partial)
	raw, ok, err := c.Get(ctx, "p")
	var kept PolyominoAnswer
	if err != nil || !ok || json.Unmarshal(raw, &kept) != nil || !kept.partial() || completeNeed(kept) != 2*completeMin {
		t.Errorf("the first-win answer cached: %v %v, elapsed %v, completeNeed %v", ok, err, time.Duration(kept.ElapsedNs), completeNeed(kept))
	}
}
