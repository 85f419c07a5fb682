package teeko

// The tests' own model of Teeko: plain arrays, configurations recognised by
// their geometry, moves generated from coordinates. It shares nothing with
// the package's bitboards, index or tables, so that the searches written on
// it check the solver independently.

// refConfigs returns the winning 4-sets recognised by shape: four
// consecutive squares on a line (row, column, diagonal), or the corners of a
// k x k block (k = 2 only under standard rules).
func refConfigs(advanced bool) [][4]int {
	var out [][4]int
	for a := 0; a < 25; a++ {
		for b := a + 1; b < 25; b++ {
			for c := b + 1; c < 25; c++ {
				for d := c + 1; d < 25; d++ {
					s := [4]int{a, b, c, d}
					if refIsLine(s) || refIsCorners(s, advanced) {
						out = append(out, s)
					}
				}
			}
		}
	}
	return out
}

func refIsLine(s [4]int) bool {
	dr, dc := s[1]/5-s[0]/5, s[1]%5-s[0]%5
	if !(dr == 0 && dc == 1 || dr == 1 && (dc == 0 || dc == 1 || dc == -1)) {
		return false
	}
	for i := 1; i < 4; i++ {
		if s[i]/5-s[i-1]/5 != dr || s[i]%5-s[i-1]%5 != dc {
			return false
		}
	}
	return true
}

func refIsCorners(s [4]int, advanced bool) bool {
	r0, c0, r1, c1 := s[0]/5, s[0]%5, s[3]/5, s[3]%5
	k := r1 - r0
	if k < 1 || c1-c0 != k || (!advanced && k != 1) {
		return false
	}
	return s[1] == 5*r0+c1 && s[2] == 5*r1+c0
}

// refPos is a position of the reference model: cells hold 'b', 'r' or '.'.
type refPos struct {
	cell   [25]byte
	toMove byte // 'b' or 'r'
}

type refGame struct {
	configs [][4]int
	style   DropStyle // who decides the drops
}

func newRefGame(r Rules, style DropStyle) *refGame {
	return &refGame{configs: refConfigs(r == Advanced), style: style}
}

func refFromPosition(p Position) refPos {
	var q refPos
	copy(q.cell[:], p.Board().String())
	q.toMove = 'b'
	if p.ToMove() == Red {
		q.toMove = 'r'
	}
	return q
}

func refOther(c byte) byte {
	if c == 'b' {
		return 'r'
	}
	return 'b'
}

func (g *refGame) won(p *refPos, c byte) bool {
	for _, s := range g.configs {
		if p.cell[s[0]] == c && p.cell[s[1]] == c && p.cell[s[2]] == c && p.cell[s[3]] == c {
			return true
		}
	}
	return false
}

func (p *refPos) pieces() int {
	n := 0
	for _, x := range p.cell {
		if x != '.' {
			n++
		}
	}
	return n
}

// children returns the positions after each legal ply.
func (g *refGame) children(p *refPos) []refPos {
	var out []refPos
	next := refOther(p.toMove)
	if p.pieces() < 8 {
		for i := 0; i < 25; i++ {
			if p.cell[i] == '.' {
				q := *p
				q.cell[i], q.toMove = p.toMove, next
				out = append(out, q)
			}
		}
		return out
	}
	for i := 0; i < 25; i++ {
		if p.cell[i] != p.toMove {
			continue
		}
		for dr := -1; dr <= 1; dr++ {
			for dc := -1; dc <= 1; dc++ {
				r, c := i/5+dr, i%5+dc
				if (dr == 0 && dc == 0) || r < 0 || r > 4 || c < 0 || c > 4 || p.cell[5*r+c] != '.' {
					continue
				}
				q := *p
				q.cell[i], q.cell[5*r+c], q.toMove = '.', p.toMove, next
				out = append(out, q)
			}
		}
	}
	return out
}

// ownerDecides reports whether the side to move chooses its own ply.
func (g *refGame) ownerDecides(p *refPos) bool {
	k := p.pieces()
	if k >= 8 {
		return true
	}
	piece := k / 2 // 0-based piece number of that colour
	switch g.style {
	case StandardDrops:
		return true
	case AlternateDrops:
		return false
	case OneMoveAlternateDrops, TwoMoveAlternateDrops, ThreeMoveAlternateDrops:
		return piece >= int(g.style-OneMoveAlternateDrops)+1
	default: // one/two/three-move-standard
		return piece < int(g.style-OneMoveStandardDrops)+1
	}
}

// within reports, for the side to move, "wins within n plies" when n is odd
// and "loses within n plies" when n is even, with perfect play by whoever
// decides each ply.
func (g *refGame) within(p *refPos, n int) bool {
	if g.won(p, refOther(p.toMove)) {
		return n%2 == 0 // already lost
	}
	kids := g.children(p)
	if len(kids) == 0 {
		return n%2 == 0 // cannot move: lost
	}
	if n == 0 {
		return false
	}
	// A child's mover is the other side: "we win within n" is "the child's
	// mover loses within n-1", and the other way round.
	exists := g.ownerDecides(p) == (n%2 == 1)
	for i := range kids {
		if g.within(&kids[i], n-1) == exists {
			return exists
		}
	}
	return !exists
}

// exact returns the distance of the position for the side to move if the
// game ends within maxDepth plies under perfect play: odd distances are
// wins, even ones losses. ok is false when it does not (a draw or a longer
// fight).
func (g *refGame) exact(p *refPos, maxDepth int) (n int, ok bool) {
	for n := 0; n <= maxDepth; n++ {
		if g.within(p, n) {
			return n, true
		}
	}
	return 0, false
}
