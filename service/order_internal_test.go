package service

import (
	"strconv"
	"strings"
	"testing"
)

// TestFastestFirst: proven moves in perfect play's order, a move without
// plies taken for a long game (after the wins with plies, before the
// losses with plies) unless a lost position's plies bound it (then right
// after its slowest losses); best_moves follow the moves' order.
func TestFastestFirst(t *testing.T) {
	// A move is "name outcome plies" ("-": unknown).
	tests := []struct {
		name    string
		outcome string // the position's
		plies   int    // the position's, 0: unknown
		moves   string // comma separated, grouped as analyze lists them
		best    string
		want    string // the moves' names in order
		perfect string // with the position's plies: a perfect move, which must lead best_moves
	}{
		{"won", "win", 4, "a win 5,b win -,c win 3,d loss 4,e loss -,f loss 6", "a,b,c", "c,a,b,e,f,d", "c"},
		{"won, the perfect move listed last", "win", 4, "a win -,b win 5,c win 3", "a,b,c", "c,b,a", "c"},
		{"lost, plies known", "loss", 8, "a loss 5,b loss -,c loss 7,d loss -", "a,b,c,d", "c,b,d,a", "c"},
		{"lost, plies known, the perfect move listed last", "loss", 8, "a loss -,b loss 5,c loss 7", "a,b,c", "c,a,b", "c"},
		{"lost, plies unknown", "loss", 0, "a loss 5,b loss -,c loss 7", "a,b,c", "b,c,a", ""},
		{"unproven moves keep their place", "unknown", 0, "a win 3,b unknown -,c loss 2,d loss 6", "b", "a,b,d,c", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &PolyominoAnswer{Outcome: tt.outcome}
			if tt.plies > 0 {
				a.Plies = &tt.plies
			}
			for _, m := range strings.Split(tt.moves, ",") {
				f := strings.Fields(m)
				mv := PolyominoMove{Move: f[0], Outcome: f[1], Proven: f[1] != "unknown"}
				if n, err := strconv.Atoi(f[2]); err == nil {
					mv.Plies = &n
				}
				a.Moves = append(a.Moves, mv)
			}
			a.BestMoves = strings.Split(tt.best, ",")
			fastestFirst(a)
			var got []string
			for _, m := range a.Moves {
				got = append(got, m.Move)
			}
			if g := strings.Join(got, ","); g != tt.want {
				t.Errorf("moves = %s, want %s", g, tt.want)
			}
			var wantBest []string
			for _, m := range got {
				if strings.Contains(","+tt.best+",", ","+m+",") {
					wantBest = append(wantBest, m)
				}
			}
			if g, w := strings.Join(a.BestMoves, ","), strings.Join(wantBest, ","); g != w {
				t.Errorf("best_moves = %s, want %s", g, w)
			}
			if tt.perfect != "" && a.BestMoves[0] != tt.perfect {
				t.Errorf("best_moves[0] = %s, want the perfect move %s", a.BestMoves[0], tt.perfect)
			}
		})
	}
}
