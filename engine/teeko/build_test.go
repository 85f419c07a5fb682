package teeko

import (
	"context"
	"errors"
	"testing"
)

func TestBuildProgressAndCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last Progress
	calls := 0
	_, err := Build(ctx, Standard, 2, func(p Progress) {
		if p.Done < last.Done || p.Total <= 0 || p.Done > p.Total || p.Rules != Standard {
			t.Errorf("progress went from %+v to %+v", last, p)
		}
		last = p
		calls++
		if p.Phase == "move-retrograde" {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build: %v", err)
	}
	if calls < 3 || last.Phase != "move-retrograde" {
		t.Errorf("%d progress calls, last %+v", calls, last)
	}
}

func TestStats(t *testing.T) {
	for _, r := range AllRules() {
		tb := testTablebase(t, r)
		nConfigs := int64(len(configurations[r]))
		for _, style := range AllDropStyles() {
			st, err := tb.Stats(style)
			if err != nil {
				t.Fatal(err)
			}
			// Black to move without a configuration: C(25,4) x C(21,4)
			// boards less those where Black has one.
			if got, want := st.MovePhase.Total(), (12650-nConfigs)*5985; got != want {
				t.Errorf("%s: %d move-phase positions, want %d", r, got, want)
			}
			for k, c := range st.DropLevels {
				nb, nr := (k+1)/2, k/2
				if want := int64(binom[25][nb]) * int64(binom[25-nb][nr]); c.Total() != want {
					t.Errorf("%s %s: %d positions with %d pieces, want %d", r, style, c.Total(), k, want)
				}
			}
			if v, _ := tb.Value(Start(r), style); st.EmptyBoard != v {
				t.Errorf("%s %s: empty board %v, Value says %v", r, style, st.EmptyBoard, v)
			}
			if style == StandardDrops {
				t.Logf("%s rules: longest win %d plies; move phase %+v (over %d); standard drops: %+v, empty board %v",
					r, st.LongestWinPlies, st.MovePhase, st.MovePhaseOver, st.DropPhase, st.EmptyBoard)
			}
		}
	}
}
