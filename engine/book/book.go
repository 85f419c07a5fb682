package book

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// files are the book's files: certificate.txt (the empty-board proof),
// longl.txt (the long-L opening, every reply) and openings.txt (the
// classified first moves).
//
//go:embed data/*.txt
var files embed.FS

// Files returns the embedded book files by name.
func Files() map[string][]byte {
	out := map[string][]byte{}
	entries, _ := fs.ReadDir(files, "data")
	for _, e := range entries {
		b, err := files.ReadFile("data/" + e.Name())
		if err == nil {
			out[e.Name()] = b
		}
	}
	return out
}

// EmbeddedCertificate is the embedded certificate.
func EmbeddedCertificate() []byte {
	b, _ := files.ReadFile("data/certificate.txt")
	return b
}

// Book answers for the positions its files prove, keyed by the engine's
// CanonicalKey. It is immutable once loaded and safe for concurrent use.
type Book struct {
	entries map[string]*entry
}

// entry is what the book knows of one position (up to congruence). Moves
// are in the engine's canonical frame of the position (ToCanonical).
type entry struct {
	win, loss bool // the value for the player to move, when known
	// wins and losses are moves known to win or lose for their maker.
	wins, losses map[string]bool
	// complete: every legal move is in wins or losses (or the position is
	// lost, so every move loses).
	complete bool
}

var embedded struct {
	once sync.Once
	book *Book
	err  error
}

// Embedded returns the book of the embedded files (loaded on first use).
func Embedded() (*Book, error) {
	embedded.once.Do(func() {
		var data [][]byte
		names := []string{}
		for name := range Files() {
			names = append(names, name)
		}
		sort.Strings(names)
		all := Files()
		for _, n := range names {
			data = append(data, all[n])
		}
		embedded.book, embedded.err = Load(data...)
	})
	return embedded.book, embedded.err
}

// Load indexes book files. It fails on a file that does not parse, a move
// that is not legal, or two files that disagree on a position's value.
func Load(data ...[]byte) (*Book, error) {
	b := &Book{entries: map[string]*entry{}}
	for _, d := range data {
		f, err := Parse(d)
		if err != nil {
			return nil, err
		}
		for _, s := range f.Sections {
			if err := b.addSection(s); err != nil {
				return nil, fmt.Errorf("position %s: %w", positionName(s.Moves), err)
			}
		}
	}
	for k, e := range b.entries {
		if e.win && e.loss {
			return nil, fmt.Errorf("book: position %s is both won and lost", k)
		}
	}
	return b, nil
}

func positionName(moves []string) string {
	if len(moves) == 0 {
		return "start"
	}
	return strings.Join(moves, " ")
}

func (b *Book) at(pos *polyomino.Position) *entry {
	k := polyomino.CanonicalKey(pos)
	e := b.entries[k]
	if e == nil {
		e = &entry{wins: map[string]bool{}, losses: map[string]bool{}}
		b.entries[k] = e
	}
	return e
}

// markLost records that the player to move in pos loses.
func (b *Book) markLost(pos *polyomino.Position) {
	e := b.at(pos)
	e.loss, e.complete = true, true
}

func (b *Book) addSection(s Section) error {
	pos, err := PositionAfter(s.Moves)
	if err != nil {
		return err
	}
	classes := pos.SymmetryClasses()
	classOf := map[string]int{}
	var all []polyomino.Move
	for i, c := range classes {
		for _, m := range c {
			classOf[m.String()] = i
		}
		all = append(all, c...)
	}
	// The canonical frame of the section's position, found once.
	canon := map[string]string{}
	for i, c := range pos.ToCanonicalMoves(all) {
		canon[all[i].String()] = c.String()
	}
	e := b.at(pos)
	covered := map[int]bool{}
	for _, l := range s.Lines {
		m, err := polyomino.ParseMove(l.Move)
		if err != nil {
			return err
		}
		ci, ok := classOf[m.String()]
		if !ok {
			return fmt.Errorf("move %s is not legal", l.Move)
		}
		if len(classes[ci]) != l.Class {
			return fmt.Errorf("move %s: class of %d moves, the file says %d", l.Move, len(classes[ci]), l.Class)
		}
		covered[ci] = true
		for _, x := range classes[ci] {
			c := canon[x.String()]
			if l.Wins {
				e.wins[c] = true
			} else {
				e.losses[c] = true
			}
		}
		child, err := pos.Play(m)
		if err != nil {
			return err
		}
		if l.Wins {
			e.win = true
			b.markLost(child)
			continue
		}
		if l.Reply == "" {
			continue
		}
		r, err := polyomino.ParseMove(l.Reply)
		if err != nil {
			return fmt.Errorf("move %s: reply: %w", l.Move, err)
		}
		after, err := child.Play(r)
		if err != nil {
			return fmt.Errorf("move %s: reply %s: %w", l.Move, l.Reply, err)
		}
		ce := b.at(child)
		ce.win = true
		ce.wins[child.ToCanonical(r).String()] = true
		b.markLost(after)
	}
	if len(covered) == len(classes) {
		e.complete = true
		if !e.win {
			e.loss = true
		}
	}
	return nil
}

// Size is the number of positions (up to congruence) the book answers for.
func (b *Book) Size() int {
	n := 0
	for _, e := range b.entries {
		if e.win || e.loss {
			n++
		}
	}
	return n
}

// Lookup answers for pos when the book proves its value: the result Solve
// would give, except that BestMoves lists the winning moves the book
// knows (BestComplete when it knows every move) and Moves every legal move,
// proven where the book knows its value. Nodes and Elapsed are zero.
func (b *Book) Lookup(pos *polyomino.Position) (polyomino.Result, bool) {
	g := pos.Game()
	if g.Config().EndRule != polyomino.NormalPlay || g.Config().Variant == polyomino.Capture {
		return polyomino.Result{}, false
	}
	e := b.entries[polyomino.CanonicalKey(pos)]
	if e == nil || !e.win && !e.loss {
		return polyomino.Result{}, false
	}
	res := polyomino.Result{Proven: true, Scores: pos.Scores(), BestComplete: e.complete}
	legal := pos.LegalMoves()
	res.LegalMoves = len(legal)
	canon := pos.ToCanonicalMoves(legal)
	var wins, losses, unknown []polyomino.MoveResult
	for i, m := range legal {
		c := canon[i].String()
		switch {
		case e.loss || e.losses[c]:
			losses = append(losses, polyomino.MoveResult{Move: m, Outcome: polyomino.Loss, Proven: true, Value: -1})
		case e.wins[c]:
			wins = append(wins, polyomino.MoveResult{Move: m, Outcome: polyomino.Win, Proven: true, Value: 1})
		default:
			unknown = append(unknown, polyomino.MoveResult{Move: m, Outcome: polyomino.OutcomeUnknown})
		}
	}
	res.Moves = append(append(wins, losses...), unknown...)
	if e.win {
		res.Outcome, res.Value = polyomino.Win, 1
		for _, mr := range wins {
			res.BestMoves = append(res.BestMoves, mr.Move)
		}
	} else {
		res.Outcome, res.Value = polyomino.Loss, -1
		for _, mr := range losses {
			res.BestMoves = append(res.BestMoves, mr.Move)
		}
	}
	if len(legal) == 0 {
		res.Over = true
	}
	return res, true
}
