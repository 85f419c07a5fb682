package verify

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A certificate is read here with a parser of the checker's own (the
// format is written down in package book):
//
//	position start
//	<first move> <class size> win
//	position <first move>
//	<reply> <class size> loss <third move>      (one line per reply class)
//
// A refutation (of a losing opening, say) has the same form one or more
// plies deeper: its first section is the position before the winning move
// ("position <opening>"), the second the position after it.

// certLine is one move line of a certificate.
type certLine struct {
	n      int // line number
	move   string
	class  int
	wins   bool
	answer string // the winning reply of a losing move
}

type certSection struct {
	moves []string
	lines []certLine
}

// replyRoot: a proof whose first section lists replies only, each losing
// (a book's reply file: every reply to the position's last move answered),
// proves that last move a win for its maker; ok reports such a section, and
// sec is the section that claims it, rooted one move earlier. The class it
// states is computed, not given: the file claims nothing about it.
func replyRoot(g *Game, first certSection) (sec certSection, ok bool, err error) {
	if len(first.moves) == 0 || len(first.lines) == 0 {
		return sec, false, nil
	}
	for _, l := range first.lines {
		if l.wins {
			return sec, false, nil
		}
	}
	_, path, err := playMoves(g, first.moves)
	if err != nil {
		return sec, false, err
	}
	n := len(path) - 1
	root := State{}
	for _, m := range path[:n] {
		root = root.Play(m)
	}
	sec = certSection{moves: first.moves[:n], lines: []certLine{{move: first.moves[n], class: classSize(g, root, path[n]), wins: true}}}
	return sec, true, nil
}

// playMoves plays the moves of a proof's root position from the empty
// board.
func playMoves(g *Game, moves []string) (State, []Move, error) {
	s := State{}
	var path []Move
	for _, x := range moves {
		m, err := g.ParseMove(x)
		if err != nil {
			return s, nil, fmt.Errorf("%w: root position: %v", ErrCertificate, err)
		}
		if !s.Legal(m) {
			return s, nil, fmt.Errorf("%w: root position: %s is not legal", ErrCertificate, x)
		}
		s = s.Play(m)
		path = append(path, m)
	}
	return s, path, nil
}

func parseCertificate(data []byte) ([]certSection, error) {
	var secs []certSection
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if f[0] == "position" {
			s := certSection{}
			if len(f) < 2 {
				return nil, fmt.Errorf("%w: line %d: position without moves", ErrCertificate, n)
			}
			if f[1] != "start" {
				s.moves = f[1:]
			}
			secs = append(secs, s)
			continue
		}
		if len(secs) == 0 {
			return nil, fmt.Errorf("%w: line %d: move before any position", ErrCertificate, n)
		}
		if len(f) < 3 {
			return nil, fmt.Errorf("%w: line %d: expected <move> <class size> win|loss [<reply>]", ErrCertificate, n)
		}
		l := certLine{n: n, move: f[0]}
		c, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: class size %q", ErrCertificate, n, f[1])
		}
		l.class = c
		switch f[2] {
		case "win":
			l.wins = true
		case "loss":
		default:
			return nil, fmt.Errorf("%w: line %d: outcome %q", ErrCertificate, n, f[2])
		}
		for _, x := range f[3:] {
			if !strings.Contains(x, "=") && l.answer == "" {
				l.answer = x
			}
		}
		secs[len(secs)-1].lines = append(secs[len(secs)-1].lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCertificate, err)
	}
	return secs, nil
}

// Options steer Check.
type Options struct {
	// Sample re-solves only this many third-ply positions, spread evenly
	// over the certificate (0: all of them).
	Sample int
	// Only, if set, picks the lines to re-solve by index (in file order
	// of the reply section); it overrides Sample.
	Only func(i int) bool
	// Workers re-solve positions in parallel, each with its own solver
	// (0: 1).
	Workers int
	// MemoBits sets each solver's memo to 2^MemoBits entries (0: 22).
	MemoBits int
	// Progress, if set, is called after each re-solved position.
	Progress func(done, total int, nodes int64)
}

// Report is what Check found.
type Report struct {
	// Root is the position the proof starts from (its moves, space
	// separated; "" for the empty board) and FirstMove the move it proves
	// a win for its maker.
	Root      string
	FirstMove string
	// Replies is the number of legal replies to the first move, Classes
	// the number of their symmetry classes (each covered by one line).
	Replies, Classes int
	// Solved is the number of positions after the answers (third-ply
	// positions of a certificate) re-solved, each a loss for the player to
	// move.
	Solved  int
	Nodes   int64
	Elapsed time.Duration
	// Costs holds each re-solved line's nodes and time, by line index.
	Costs map[int]Cost
}

// Cost is the work of one re-solve.
type Cost struct {
	Line    string
	Nodes   int64
	Elapsed time.Duration
}

// Check verifies a certificate that the empty 8 x 8 board is a first-player
// win: the first move is legal and claimed to win; every class of replies
// (under the symmetries of the board that map the position after the first
// move onto itself) has exactly one line, with the right class size, and a
// legal third move; and every third-ply position (or a sample) is re-solved
// by this package's own solver and found lost for the player to move.
//
// A proof whose first section is a later position (a refutation: "position
// <moves>", then the winning move) is checked the same way from there: the
// root's moves must be legal, and the answers are the moves after the
// replies (fourth moves after a one-move root). A proof that starts with the
// replies to the last of its position's moves, all losing (a reply file of
// the book), proves that move a win from the position before it.
func Check(ctx context.Context, g *Game, certificate []byte, opts Options) (Report, error) {
	t0 := time.Now()
	var rep Report
	secs, err := parseCertificate(certificate)
	if err != nil {
		return rep, err
	}
	// The root: the first section's position.
	if len(secs) == 0 {
		return rep, fmt.Errorf("%w: no \"position\" section", ErrCertificate)
	}
	if sec, ok, err := replyRoot(g, secs[0]); err != nil {
		return rep, err
	} else if ok {
		secs = append([]certSection{sec}, secs...)
	}
	start := &secs[0]
	root, path, err := playMoves(g, start.moves)
	if err != nil {
		return rep, err
	}
	var names []string
	for _, m := range path {
		names = append(names, g.String(m))
	}
	rep.Root = strings.Join(names, " ")
	answer := ordinal(len(path) + 3)
	// The winning move.
	var first *certLine
	for i := range start.lines {
		if start.lines[i].wins {
			if first != nil {
				return rep, fmt.Errorf("%w: line %d: a second first move", ErrCertificate, start.lines[i].n)
			}
			first = &start.lines[i]
		}
	}
	if first == nil {
		return rep, fmt.Errorf("%w: the start section claims no winning first move", ErrCertificate)
	}
	m1, err := g.ParseMove(first.move)
	if err != nil {
		return rep, fmt.Errorf("%w: line %d: %v", ErrCertificate, first.n, err)
	}
	if !root.Legal(m1) {
		return rep, fmt.Errorf("%w: line %d: %s is not legal", ErrCertificate, first.n, first.move)
	}
	if n := classSize(g, root, m1); first.class != n {
		return rep, fmt.Errorf("%w: line %d: class of %s has %d moves, the certificate says %d", ErrCertificate, first.n, first.move, n, first.class)
	}
	rep.FirstMove = g.String(m1)
	s1 := root.Play(m1)
	prefix := strings.Join(append(names, rep.FirstMove), " ")
	// The replies: every class covered once.
	var replies *certSection
	want := append(path, m1)
	for i := range secs {
		if sameMoves(g, secs[i].moves, want) {
			replies = &secs[i]
		}
	}
	if replies == nil {
		return rep, fmt.Errorf("%w: no section for the position after %s", ErrCertificate, prefix)
	}
	classes := map[uint64]int{}
	for _, r := range g.Moves(s1) {
		classes[classOf(s1, r)]++
		rep.Replies++
	}
	rep.Classes = len(classes)
	covered := map[uint64]int{}
	type task struct {
		i    int
		line string
		s    State
	}
	var tasks []task
	for i, l := range replies.lines {
		r, err := g.ParseMove(l.move)
		if err != nil {
			return rep, fmt.Errorf("%w: line %d: %v", ErrCertificate, l.n, err)
		}
		if !s1.Legal(r) {
			return rep, fmt.Errorf("%w: line %d: reply %s is not legal after %s", ErrCertificate, l.n, l.move, prefix)
		}
		c := classOf(s1, r)
		if prev, ok := covered[c]; ok {
			return rep, fmt.Errorf("%w: line %d: reply %s is in the class of line %d", ErrCertificate, l.n, l.move, prev)
		}
		covered[c] = l.n
		if l.class != classes[c] {
			return rep, fmt.Errorf("%w: line %d: class of %s has %d replies, the certificate says %d", ErrCertificate, l.n, l.move, classes[c], l.class)
		}
		if l.wins || l.answer == "" {
			return rep, fmt.Errorf("%w: line %d: reply %s has no winning %s move", ErrCertificate, l.n, l.move, answer)
		}
		t, err := g.ParseMove(l.answer)
		if err != nil {
			return rep, fmt.Errorf("%w: line %d: %s move: %v", ErrCertificate, l.n, answer, err)
		}
		s2 := s1.Play(r)
		if !s2.Legal(t) {
			return rep, fmt.Errorf("%w: line %d: %s move %s is not legal after %s %s", ErrCertificate, l.n, answer, l.answer, prefix, l.move)
		}
		tasks = append(tasks, task{i: i, line: prefix + " " + l.move + " " + l.answer, s: s2.Play(t)})
	}
	for c := range classes {
		if _, ok := covered[c]; !ok {
			for _, r := range g.Moves(s1) {
				if classOf(s1, r) == c {
					return rep, fmt.Errorf("%w: no line for reply %s (a class of %d)", ErrCertificate, g.String(r), classes[c])
				}
			}
		}
	}
	// Re-solve the third-ply positions.
	var todo []task
	switch {
	case opts.Only != nil:
		for _, t := range tasks {
			if opts.Only(t.i) {
				todo = append(todo, t)
			}
		}
	case opts.Sample > 0 && opts.Sample < len(tasks):
		for k := range opts.Sample {
			todo = append(todo, tasks[k*len(tasks)/opts.Sample])
		}
	default:
		todo = tasks
	}
	workers := max(opts.Workers, 1)
	memo := opts.MemoBits
	if memo <= 0 {
		memo = 22
	}
	var (
		mu      sync.Mutex
		next    int
		failure error
		nodes   atomic.Int64
		done    int
		wg      sync.WaitGroup
	)
	rep.Costs = map[int]Cost{}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := NewSolver(g, memo)
			for {
				mu.Lock()
				if next >= len(todo) || failure != nil {
					mu.Unlock()
					return
				}
				t := todo[next]
				next++
				mu.Unlock()
				before := v.Nodes
				t1 := time.Now()
				win, err := v.Wins(ctx, t.s)
				c := Cost{Line: t.line, Nodes: v.Nodes - before, Elapsed: time.Since(t1)}
				nodes.Add(c.Nodes)
				mu.Lock()
				switch {
				case err != nil:
					failure = err
				case win:
					failure = fmt.Errorf("%w: after %s the player to move wins: the %s move does not win", ErrCertificate, t.line, answer)
				default:
					rep.Costs[t.i] = c
					done++
					if opts.Progress != nil {
						opts.Progress(done, len(todo), nodes.Load())
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.Solved, rep.Nodes, rep.Elapsed = done, nodes.Load(), time.Since(t0)
	return rep, failure
}

// classSize is the number of legal moves of s in the class of m.
func classSize(g *Game, s State, m Move) int {
	c := classOf(s, m)
	n := 0
	for _, r := range g.Moves(s) {
		if classOf(s, r) == c {
			n++
		}
	}
	return n
}

// sameMoves reports whether the notations xs name the moves ms.
func sameMoves(g *Game, xs []string, ms []Move) bool {
	if len(xs) != len(ms) {
		return false
	}
	for i, x := range xs {
		if m, err := g.ParseMove(x); err != nil || m != ms[i] {
			return false
		}
	}
	return true
}

// ordinal names the n-th move of a game (n >= 3).
func ordinal(n int) string {
	names := []string{"third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth"}
	if n >= 3 && n-3 < len(names) {
		return names[n-3]
	}
	return fmt.Sprintf("%dth", n)
}
