package book

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// The empty board's length. The first player wins, so the game lasts the
// fewest plies he can force over his winning first moves. A lower bound
// comes from data/bounds/lower-bound.txt (gamesolver book lower-bound,
// polyomino.Lengths.WinsWithin): for each winning first move a reply
// after which he cannot end the game within P plies, so that it lasts at
// least P + 4 from the empty board. A reply file with plies whose first
// move wins gives an upper bound: the position after that move lasts as
// long as its file says, plus one from the empty board. When the two
// meet, the book knows the empty board's length and its perfect first
// moves (those whose files give it), and the lengths after the first
// moves of the files with plies.

// lowerBound is what a lower-bound file says: every opening it lists (a
// first move) has a reply after which the first player cannot end the
// game within plies plies.
type lowerBound struct {
	plies    int
	openings map[string]bool
}

// parseLowerBound reads the lines "<opening> <reply> within=P no ..." of
// a lower-bound file (lines "<opening> none ..." and comments are skipped:
// they prove nothing).
func parseLowerBound(data []byte) (lowerBound, error) {
	lb := lowerBound{plies: -1, openings: map[string]bool{}}
	for n, line := range bytes.Split(data, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) == 0 || strings.HasPrefix(f[0], "#") || len(f) > 1 && f[1] == "none" {
			continue
		}
		if len(f) < 4 || !strings.HasPrefix(f[2], "within=") || f[3] != "no" {
			return lb, fmt.Errorf("%w: lower bound, line %d: want <opening> <reply> within=P no", ErrFormat, n+1)
		}
		p, err := strconv.Atoi(strings.TrimPrefix(f[2], "within="))
		if err != nil || p < 1 || p%2 == 0 || lb.plies >= 0 && p != lb.plies {
			return lb, fmt.Errorf("%w: lower bound, line %d: within=%s (one odd bound for the file)", ErrFormat, n+1, strings.TrimPrefix(f[2], "within="))
		}
		lb.plies = p
		m, err := polyomino.ParseMove(f[0])
		if err != nil {
			return lb, fmt.Errorf("%w: lower bound, line %d: %v", ErrFormat, n+1, err)
		}
		// The reply must be legal after the opening (what the bound was
		// proven of).
		if _, err := PositionAfter(f[:2]); err != nil {
			return lb, fmt.Errorf("%w: lower bound, line %d: %v", ErrFormat, n+1, err)
		}
		lb.openings[m.String()] = true
	}
	return lb, nil
}

// addEmptyLength gives the empty board's entry its length when the
// lower bound of data (a lower-bound file) covers every winning first
// move and a reply file with plies meets it (see above); it indexes the
// lazy files with plies of winning first moves. It does nothing when the
// bounds do not meet, and fails on a malformed file or one that names a
// first move the book does not know to win.
func (b *Book) addEmptyLength(data []byte) error {
	lb, err := parseLowerBound(data)
	if err != nil || lb.plies < 0 {
		return err
	}
	empty, err := PositionAfter(nil)
	if err != nil {
		return err
	}
	b.mu.RLock()
	e := b.entries[polyomino.CanonicalKey(empty)]
	b.mu.RUnlock()
	if e == nil || !e.win || !e.complete {
		return nil // every first move classified, or no bound on the game
	}
	classes := empty.SymmetryClasses()
	var all []polyomino.Move
	for _, c := range classes {
		all = append(all, c...)
	}
	canon := canonicalNames(empty, all)
	covered := true
	var winning []int // the winning classes
	for i, c := range classes {
		wins, loses, listed := false, false, false
		for _, m := range c {
			wins = wins || e.wins.has(canon[m.String()])
			loses = loses || e.losses.has(canon[m.String()])
			listed = listed || lb.openings[m.String()]
		}
		if wins && loses {
			return fmt.Errorf("lower bound: the book says %s both wins and loses", c[0])
		}
		if listed && !wins {
			return fmt.Errorf("lower bound: %s is not a winning first move", c[0])
		}
		if wins {
			covered = covered && listed
			winning = append(winning, i)
		}
	}
	if !covered {
		return nil // a bound on some openings only: no bound on the game
	}
	least := lb.plies + 4 // the opening, the reply, then at least lb.plies + 2
	// The lengths after the winning first moves whose reply files have
	// plies.
	after := map[string]int{}
	best := -1
	for _, ci := range winning {
		m := classes[ci][0]
		one, err := PositionAfter([]string{m.String()})
		if err != nil {
			return err
		}
		l, ok := b.LengthOf(one) // an eager file's (the certificate's)
		if !ok {
			b.mu.RLock()
			f := b.lazy[polyomino.CanonicalKey(one)]
			b.mu.RUnlock()
			if f == nil || !bytes.Contains(f.data, []byte("plies=")) {
				continue
			}
			if err := b.index(f); err != nil {
				return err
			}
			if l, ok = b.LengthOf(one); !ok {
				continue
			}
		}
		if l.Plies+1 < least {
			return fmt.Errorf("lower bound: %s wins in %d plies, fewer than the bound's %d", m, l.Plies+1, least)
		}
		for _, x := range classes[ci] {
			after[canon[x.String()]] = l.Plies
		}
		if best < 0 || l.Plies < best {
			best = l.Plies
		}
	}
	if best < 0 || best+1 != least {
		return nil // the bounds do not meet
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := e.setPlies(least); err != nil {
		return err
	}
	for c, n := range after {
		if err := e.setAfter(c, n); err != nil {
			return err
		}
		if n+1 == least {
			e.perfect = e.perfect.add(c)
		}
	}
	return nil
}
