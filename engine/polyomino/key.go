package polyomino

import (
	"encoding/binary"
	"encoding/hex"
	"math/bits"
)

// A position's game-theoretic value depends only on the empty cells some
// remaining piece can still cover (the live cells; the others are dead) and
// on the pieces that still have a placement, not on where the board's
// edges, blocked cells or placed pieces are. The transposition table key is
// therefore the live cells up to rotation, reflection and translation, plus
// the live pieces of the player to move and of the other player:
//
//	key.a  the live cells, in the canonical orientation: of the 8 images
//	       under the symmetries of the square, each translated to touch the
//	       top and left edges, the smallest. Exact (not hashed) on boards at
//	       most 8 wide and 8 high, drawn in an 8 x 8 frame; a 64-bit hash of
//	       the same canonical form in a 16 x 16 frame otherwise.
//	key.b  the live pieces: the mask itself in a common pool; a 64-bit hash
//	       of the masks (mover's, other's) with hands.
//
// The endgame tables of the one-word search key the live cells as they lie
// (keyer.raw, worker.key1): a finer key, just as exact.
type ttKey struct{ a, b uint64 }

// keyer computes keys for one game.
type keyer struct {
	w, h   int
	frame8 bool // w, h <= 8
	pool   bool
}

func newKeyer(g *Game) keyer {
	return keyer{w: g.geo.Width, h: g.geo.Height, frame8: g.geo.Width <= 8 && g.geo.Height <= 8, pool: g.pool}
}

// key of the live cells (board layout) and live piece masks.
func (k *keyer) key(live Bits, mover, other uint64) ttKey {
	var a uint64
	if k.frame8 {
		a = canon8(k.toFrame8(live[0]))
	} else {
		a = k.canonWide(live)
	}
	return ttKey{a, k.pieces(mover, other)}
}

// pieces is key.b: the live pieces, the mover's mask itself in a common
// pool, a hash of both masks with hands.
func (k *keyer) pieces(mover, other uint64) uint64 {
	if k.pool {
		return mover
	}
	return mix64(mover*0x9e3779b97f4a7c15 ^ mix64(other+0x632be59bd9b4e019))
}

// raw is key without the symmetries, for a board of at most 64 cells (the
// endgame table's key: see worker.key1).
func (k *keyer) raw(live, mover, other uint64) ttKey {
	return ttKey{live, k.pieces(mover, other)}
}

// toFrame8 redraws a board at most 8 wide (W = width layout) with W = 8.
func (k *keyer) toFrame8(x uint64) uint64 {
	if k.w == 8 {
		return x
	}
	rowMask := uint64(1)<<uint(k.w) - 1
	var out uint64
	for y := 0; y < k.h; y++ {
		out |= (x >> uint(y*k.w) & rowMask) << uint(y*8)
	}
	return out
}

// canon8 is the smallest translated image of x under the 8 symmetries of
// the square, in the 8 x 8 frame.
func canon8(x uint64) uint64 {
	if x == 0 {
		return 0
	}
	h := flipH(x)
	v := flipV(x)
	hv := flipV(h)
	best := toOrigin8(x)
	best = min(best, toOrigin8(h), toOrigin8(v), toOrigin8(hv))
	t := transpose(x)
	th := flipH(t)
	tv := flipV(t)
	thv := flipV(th)
	return min(best, toOrigin8(t), toOrigin8(th), toOrigin8(tv), toOrigin8(thv))
}

// canonWide hashes the canonical form of a set of cells of a board wider or
// higher than 8, drawn in a 16 x 16 frame (row y in bits 16y..16y+15).
func (k *keyer) canonWide(live Bits) uint64 {
	var cells [256]Cell
	n := 0
	for w, word := range live {
		for ; word != 0; word &= word - 1 {
			i := w*64 + bits.TrailingZeros64(word)
			cells[n] = Cell{i % k.w, i / k.w}
			n++
		}
	}
	if n == 0 {
		return 0
	}
	var best Bits
	first := true
	for _, t := range transforms {
		minX, minY := 1<<30, 1<<30
		var img [256]Cell
		for i, c := range cells[:n] {
			d := t.Apply(c)
			img[i] = d
			minX, minY = min(minX, d.X), min(minY, d.Y)
		}
		var b Bits
		for _, d := range img[:n] {
			b.Set((d.Y-minY)*16 + d.X - minX)
		}
		if first || lessBits(b, best) {
			best, first = b, false
		}
	}
	return mix64(best[0] ^ mix64(best[1]^mix64(best[2]^mix64(best[3]+1))))
}

func lessBits(a, b Bits) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// mix64 is the splitmix64 finaliser.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// positionKey is the transposition key of a position (its liveSets, the
// player to move first).
func positionKey(p *Position, live Bits, pieces [2]uint64) ttKey {
	k := newKeyer(p.game)
	m := p.toMove & 1
	return k.key(live, pieces[m], pieces[1-m])
}

// CanonicalKey is a cache key for a position's analysis: equal for
// positions of the same game that are images of one another under the
// board's symmetries (and, more generally, whose live cells are congruent
// with the same live pieces), different otherwise. It includes the game's
// rules and, under the score rule, the current score difference, so
// equal keys mean equal analyses.
func CanonicalKey(p *Position) string {
	live, pieces := p.liveSets()
	return canonicalKey(p, live, pieces)
}

// canonicalKey is CanonicalKey with the position's liveSets.
func canonicalKey(p *Position, live Bits, pieces [2]uint64) string {
	k := positionKey(p, live, pieces)
	g := p.game
	var buf [40]byte
	binary.BigEndian.PutUint64(buf[0:], k.a)
	binary.BigEndian.PutUint64(buf[8:], k.b)
	var h uint64
	if !g.pool {
		// Hands: which player is to move and which hands are live are in
		// key.b only as a hash; add the exact masks.
		h = p.avail[p.toMove&1]
		binary.BigEndian.PutUint64(buf[24:], p.avail[1-p.toMove&1])
	}
	binary.BigEndian.PutUint64(buf[16:], h)
	diff := p.score[p.toMove&1] - p.score[1-p.toMove&1]
	if !g.score {
		diff = 0
	}
	buf[32] = byte(int8(diff))
	rules := string(g.cfg.EndRule[0]) + map[bool]string{true: "p", false: "h"}[g.pool] + map[bool]string{true: "8", false: "w"}[g.geo.Width <= 8 && g.geo.Height <= 8]
	return rules + string(rune('0'+g.set.Order)) + ":" + hex.EncodeToString(buf[:33])
}
