package polyomino

import "testing"

// Known move counts ("perft" for placement games).
func TestKnownMoveCounts(t *testing.T) {
	tests := []struct {
		preset          string
		moves           []string
		legal, distinct int
	}{
		{"pentominoes", nil, 2308, 296},
		{"tetrominoes", nil, 0, 0},
	}
	for _, tt := range tests {
		cfg, err := Preset(tt.preset)
		if err != nil {
			t.Fatal(err)
		}
		pos, err := NewPosition(cfg, nil, tt.moves, DefaultToMove)
		if err != nil {
			t.Fatalf("%s: %v", tt.preset, err)
		}
		if got := pos.LegalMoveCount(); tt.legal != 0 && got != tt.legal {
			t.Errorf("%s %v: %d legal moves, want %d", tt.preset, tt.moves, got, tt.legal)
		}
		if got := pos.DistinctUpToSymmetry(); tt.distinct != 0 && got != tt.distinct {
			t.Errorf("%s %v: %d distinct moves, want %d", tt.preset, tt.moves, got, tt.distinct)
		}
		t.Logf("%s: %d legal, %d distinct", tt.preset, pos.LegalMoveCount(), pos.DistinctUpToSymmetry())
	}
}
