package service

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service/cache"
)

// TestCacheLookupsCounted: a request's answer computed then served counts
// one miss and one hit: the re-reads of its own key (after its slot, before
// its write) are not lookups (they made a 50 % hit ratio show 33 %).
func TestCacheLookupsCounted(t *testing.T) {
	counts := map[string]int{}
	var mu sync.Mutex
	obs := func(layer, outcome string) {
		mu.Lock()
		defer mu.Unlock()
		counts[outcome]++
	}
	c := cache.Observe(cache.NewMemory(1<<24, time.Minute), "memory", obs)
	s := &Searcher{Loader: cache.NewLoader(c, time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 2}
	five, pieces := 5, PieceNames("FILNPTU")
	p := NewPolyomino(s)
	for i := range 2 {
		a, err := p.Analyze(context.Background(), PolyominoQuery{Game: "pentominoes", Width: &five, Height: &five, Pieces: &pieces})
		if err != nil || !a.Proven {
			t.Fatalf("analyze %d: %v %+v", i, err, a)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if counts["miss"] != 1 || counts["hit"] != 1 {
		t.Errorf("lookups %v, want one miss and one hit", counts)
	}
}
