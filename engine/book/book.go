package book

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// files are the book's files: certificate.txt (the empty-board proof),
// longl.txt (the long-L opening, every reply), openings.txt (the
// classified first moves), refutation-<class>.txt (the losing first moves
// refuted), lengths-certificate.txt and lengths-longl.txt (the
// certificate's replies, and most of the long-L opening's losing ones, with
// their plies and a fastest third move), and replies/replies-<class>.txt (every
// reply to a winning first move, each with a winning third move).
//
//go:embed data/*.txt data/replies/*.txt
var files embed.FS

// lowerBoundFile is data/bounds/lower-bound.txt (see addEmptyLength).
//
//go:embed data/bounds/lower-bound.txt
var lowerBoundFile []byte

// Files returns the embedded book files by name: "certificate.txt", ...,
// and "replies/replies-<class>.txt".
func Files() map[string][]byte {
	out := map[string][]byte{}
	for _, dir := range []string{"data", "data/replies"} {
		entries, _ := fs.ReadDir(files, dir)
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			name := strings.TrimPrefix(dir+"/"+e.Name(), "data/")
			if b, err := files.ReadFile(dir + "/" + e.Name()); err == nil {
				out[name] = b
			}
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
// CanonicalKey. It is safe for concurrent use: its only change after
// loading is the indexing of a lazy file (AddLazy) on first need.
type Book struct {
	mu      sync.RWMutex
	entries map[string]*entry
	// lazy holds files indexed on first use, by the canonical key of the
	// position their first section starts from: the reply files of the
	// winning first moves (about 80 KB and 2600 positions each, so that
	// indexing them all would cost seconds at every start).
	lazy map[string]*lazyFile
}

// lazyFile is a file of the book indexed on first need.
type lazyFile struct {
	name string
	data []byte
	once sync.Once
	err  error // set by once
	ok   bool  // indexed (under Book.mu)
}

// lazyPlies: the positions a lazy file covers have at most this many
// pieces placed (the first move, the reply, the third move).
const lazyPlies = 3

// entry is what the book knows of one position (up to congruence). Moves
// are in the engine's canonical frame of the position (ToCanonical).
type entry struct {
	win, loss bool // the value for the player to move, when known
	// wins and losses are moves known to win or lose for their maker.
	wins, losses moveSet
	// complete: every legal move is in wins or losses (or the position is
	// lost, so every move loses).
	complete bool
	// What a file with plies (Line.Plies) tells of the game's length:
	// plies, when hasPlies, is how long it lasts from the position under
	// perfect play; perfect are moves of perfect play (fastest wins of a
	// won position, slowest losses of a lost one); after is the plies the
	// game lasts after a move. Only the positions of such files have them.
	hasPlies bool
	plies    int
	perfect  moveSet
	after    map[string]int
}

// setPlies records the length of e's position, failing when a file said
// another.
func (e *entry) setPlies(n int) error {
	if e.hasPlies && e.plies != n {
		return fmt.Errorf("the files disagree on its length: %d and %d plies", e.plies, n)
	}
	e.hasPlies, e.plies = true, n
	return nil
}

// mergeLengths adds what o knows of lengths to what e knows; with dry,
// it only reports whether the two disagree.
func (e *entry) mergeLengths(o *entry, dry bool) error {
	if o.hasPlies && e.hasPlies && o.plies != e.plies {
		return fmt.Errorf("the files disagree on its length: %d and %d plies", e.plies, o.plies)
	}
	for c, n := range o.after {
		if old, ok := e.after[c]; ok && old != n {
			return fmt.Errorf("the files disagree on the length after %s: %d and %d plies", c, old, n)
		}
	}
	if dry {
		return nil
	}
	if o.hasPlies {
		e.hasPlies, e.plies = true, o.plies
	}
	for _, m := range o.perfect {
		e.perfect = e.perfect.add(m)
	}
	for c, n := range o.after {
		_ = e.setAfter(c, n)
	}
	return nil
}

// setAfter records that the game lasts n plies after move c (canonical).
func (e *entry) setAfter(c string, n int) error {
	if old, ok := e.after[c]; ok && old != n {
		return fmt.Errorf("the files disagree on the length after %s: %d and %d plies", c, old, n)
	}
	if e.after == nil {
		e.after = map[string]int{}
	}
	e.after[c] = n
	return nil
}

var embedded = struct {
	once   sync.Once
	book   *Book
	err    error
	loaded atomic.Bool   // book and err are set
	done   chan struct{} // closed when loaded
}{done: make(chan struct{})}

// EmbeddedStatus reports whether the embedded book has finished loading,
// and if so its load error (nil: loaded).
func EmbeddedStatus() (done bool, err error) {
	if !embedded.loaded.Load() {
		return false, nil
	}
	return true, embedded.err
}

// EmbeddedWithin returns the embedded book, loading it if no one has
// begun to, when it is loaded within d (a request's share of its budget:
// the load takes about 2 s of one core, more on a busy machine) and
// before ctx ends; false while it still loads then, or when it failed to
// load.
func EmbeddedWithin(ctx context.Context, d time.Duration) (*Book, bool) {
	if embedded.loaded.Load() {
		return EmbeddedLoaded()
	}
	go func() { _, _ = Embedded() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-embedded.done:
		return EmbeddedLoaded()
	case <-t.C:
		return nil, false
	case <-ctx.Done():
		return nil, false
	}
}

// EmbeddedLoaded returns the embedded book if it is loaded, without
// waiting for it (nil, false while it loads or before Embedded was called).
func EmbeddedLoaded() (*Book, bool) {
	if !embedded.loaded.Load() {
		return nil, false
	}
	return embedded.book, embedded.err == nil
}

// MayHold reports, cheaply, whether the book can answer for positions of
// pos's game: Pentominoes on the 8 x 8 board with a common pool, normal
// play (the game the book proves), so that other games never wait for it.
func MayHold(pos *polyomino.Position) bool {
	c := pos.Game().Config()
	return c.EndRule == polyomino.NormalPlay && c.Variant != polyomino.Capture && onBookBoard(c)
}

// onBookBoard: a game on the book's board (sameBoard with the pentominoes
// preset, read from its configuration: making its Game would build every
// placement).
func onBookBoard(c polyomino.Config) bool {
	pent, err := polyomino.Preset("pentominoes")
	return err == nil && sameBoard(c, pent)
}

// Embedded returns the book of the embedded files (loaded on first use;
// the reply files are indexed when a position of theirs is first asked).
func Embedded() (*Book, error) {
	embedded.once.Do(func() {
		b, err := loadFiles(Files())
		if err == nil {
			// A bound that fails to load leaves the empty board without
			// its length, not the book without its positions
			// (TestEmptyBoardLength checks that it loads).
			_ = b.addEmptyLength(lowerBoundFile)
		}
		embedded.book, embedded.err = b, err
		embedded.loaded.Store(true)
		close(embedded.done)
	})
	return embedded.book, embedded.err
}

// loadFiles is the book of files (named as Files names them): the files
// at the top loaded, the others (the reply files) registered to be
// indexed when first needed.
func loadFiles(all map[string][]byte) (*Book, error) {
	names := []string{}
	for name := range all {
		names = append(names, name)
	}
	sort.Strings(names)
	var eager [][]byte
	for _, n := range names {
		if !strings.Contains(n, "/") {
			eager = append(eager, all[n])
		}
	}
	b, err := Load(eager...)
	for _, n := range names {
		if err == nil && strings.Contains(n, "/") {
			err = b.AddLazy(n, all[n])
		}
	}
	return b, err
}

// AddLazy registers a file to be indexed when a position it may cover is
// first looked up: a position with at most three pieces placed, one of
// which alone gives the position the file's first section starts from.
func (b *Book) AddLazy(name string, data []byte) error {
	moves, err := firstPosition(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	pos, err := PositionAfter(moves)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if len(moves) != 1 {
		return fmt.Errorf("%s: starts from position %s, not after a first move", name, positionName(moves))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lazy == nil {
		b.lazy = map[string]*lazyFile{}
	}
	k := polyomino.CanonicalKey(pos)
	if old := b.lazy[k]; old != nil {
		return fmt.Errorf("%s: starts from the position of %s", name, old.name)
	}
	b.lazy[k] = &lazyFile{name: name, data: data}
	return nil
}

// firstPosition is the moves of a file's first "position" line.
func firstPosition(data []byte) ([]string, error) {
	for rest := data; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		text := strings.TrimSpace(string(line))
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f, err := Parse([]byte(text + "\n"))
		if err != nil {
			return nil, err
		}
		if len(f.Sections) != 1 {
			break
		}
		return f.Sections[0].Moves, nil
	}
	return nil, fmt.Errorf("%w: no position line", ErrFormat)
}

// fetch indexes the lazy files that may cover pos: those whose first move
// is one of pos's pieces. A file that fails to index is left out of the
// book (LoadAll reports it; the embedded files are tested).
func (b *Book) fetch(pos *polyomino.Position, wait bool) {
	b.mu.RLock()
	n := len(b.lazy)
	b.mu.RUnlock()
	placed := pos.Placed()
	if n == 0 || len(placed) == 0 || len(placed) > lazyPlies || !onBookBoard(pos.Game().Config()) {
		return // no lazy file can cover pos
	}
	for _, p := range placed {
		one, err := PositionAfter([]string{polyomino.Move{Piece: p.Piece, Cells: p.Cells}.String()})
		if err != nil {
			continue
		}
		b.mu.RLock()
		f := b.lazy[polyomino.CanonicalKey(one)]
		b.mu.RUnlock()
		switch {
		case f == nil:
		case wait:
			_ = b.index(f)
		default:
			b.mu.RLock()
			done := f.ok
			b.mu.RUnlock()
			if !done {
				go func() { _ = b.index(f) }()
			}
		}
	}
}

// sameBoard: the games have the same board and order of pieces, in a
// common pool or both not (the other rules are Lookup's to check).
func sameBoard(a, b polyomino.Config) bool {
	return a.Pool == b.Pool && a.Order == b.Order && a.Width == b.Width && a.Height == b.Height &&
		slices.Equal(a.Blocked, b.Blocked)
}

// index adds a lazy file's positions to the book, once. The file is read
// into a book of its own without the lock (lookups go on meanwhile), then
// merged, and only when none of its positions contradicts the book.
func (b *Book) index(f *lazyFile) error {
	f.once.Do(func() {
		own := &Book{entries: map[string]*entry{}}
		if err := own.add(f.data); err != nil {
			f.err = fmt.Errorf("%s: %w", f.name, err)
			return
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		for k, e := range own.entries {
			old := b.entries[k]
			if old == nil {
				continue
			}
			if (old.win || e.win) && (old.loss || e.loss) {
				f.err = fmt.Errorf("%s: book: position %s is both won and lost", f.name, k)
				return
			}
			if err := old.mergeLengths(e, true); err != nil {
				f.err = fmt.Errorf("%s: book: position %s: %w", f.name, k, err)
				return
			}
		}
		for k, e := range own.entries {
			old := b.entries[k]
			if old == nil {
				b.entries[k] = e
				continue
			}
			old.win, old.loss, old.complete = old.win || e.win, old.loss || e.loss, old.complete || e.complete
			for _, m := range e.wins {
				old.wins = old.wins.add(m)
			}
			for _, m := range e.losses {
				old.losses = old.losses.add(m)
			}
			_ = old.mergeLengths(e, false) // checked above
		}
		f.ok = true
	})
	return f.err
}

// LoadAll indexes every lazy file now; it returns the first file's error.
func (b *Book) LoadAll() error {
	b.mu.RLock()
	var fs []*lazyFile
	for _, f := range b.lazy {
		fs = append(fs, f)
	}
	b.mu.RUnlock()
	sort.Slice(fs, func(i, j int) bool { return fs[i].name < fs[j].name })
	var first error
	for _, f := range fs {
		if err := b.index(f); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Lazy is the number of lazy files and of those indexed so far (a file
// that failed to index is not).
func (b *Book) Lazy() (files, indexed int) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, f := range b.lazy {
		files++
		if f.ok {
			indexed++
		}
	}
	return files, indexed
}

// Load indexes book files. It fails on a file that does not parse, a move
// that is not legal, or two files that disagree on a position's value.
func Load(data ...[]byte) (*Book, error) {
	b := &Book{entries: map[string]*entry{}}
	for _, d := range data {
		if err := b.add(d); err != nil {
			return nil, err
		}
	}
	if err := b.check(); err != nil {
		return nil, err
	}
	return b, nil
}

// add indexes one file (b.mu held or b not shared yet).
func (b *Book) add(data []byte) error {
	f, err := Parse(data)
	if err != nil {
		return err
	}
	for _, s := range f.Sections {
		if err := b.addSection(s); err != nil {
			return fmt.Errorf("position %s: %w", positionName(s.Moves), err)
		}
	}
	return nil
}

// check fails when the files disagree on a position's value.
func (b *Book) check() error {
	for k, e := range b.entries {
		if e.win && e.loss {
			return fmt.Errorf("book: position %s is both won and lost", k)
		}
	}
	return nil
}

func positionName(moves []string) string {
	if len(moves) == 0 {
		return "start"
	}
	return strings.Join(moves, " ")
}

// at is the entry of pos, made empty when the book has none.
func (b *Book) at(pos *polyomino.Position) *entry {
	return b.entryOf(polyomino.CanonicalKey(pos))
}

// entryOf is at for a position of canonical key k.
func (b *Book) entryOf(k string) *entry {
	e := b.entries[k]
	if e == nil {
		e = &entry{}
		b.entries[k] = e
	}
	return e
}

// moveSet is a sorted set of moves: most positions of the book know one
// move or none (a map per position would double the book's memory).
type moveSet []string

func (ms moveSet) add(m string) moveSet {
	i, found := slices.BinarySearch(ms, m)
	if found {
		return ms
	}
	return slices.Insert(ms, i, m)
}

func (ms moveSet) has(m string) bool {
	_, found := slices.BinarySearch(ms, m)
	return found
}

// canonicalNames maps the notation of each of moves, legal moves of pos,
// to its notation in pos's canonical frame (the frame the entries keep).
func canonicalNames(pos *polyomino.Position, moves []polyomino.Move) map[string]string {
	canon := make(map[string]string, len(moves))
	for i, c := range pos.ToCanonicalMoves(moves) {
		canon[moves[i].String()] = c.String()
	}
	return canon
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
	canon := canonicalNames(pos, all)
	e := b.at(pos)
	covered := map[int]bool{}
	var lineClass []int // the class of each line, as they are read
	// The lines' plies: with every class covered, the position's length.
	allPlies, wins := true, false
	best := map[bool]int{true: -1, false: -1} // by l.Wins: the least plies of a win, the most of a loss
	for _, l := range s.Lines {
		allPlies = allPlies && l.Plies != nil
		wins = wins || l.Wins
		if l.Plies != nil {
			if p, w := *l.Plies, l.Wins; best[w] < 0 || w && p < best[w] || !w && p > best[w] {
				best[w] = p
			}
		}
	}
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
		lineClass = append(lineClass, ci)
		for _, x := range classes[ci] {
			c := canon[x.String()]
			if l.Wins {
				e.wins = e.wins.add(c)
			} else {
				e.losses = e.losses.add(c)
			}
		}
		child, err := pos.Play(m)
		if err != nil {
			return err
		}
		if l.Plies != nil {
			if err := b.linePlies(e, classes[ci], canon, child, *l.Plies); err != nil {
				return fmt.Errorf("move %s: %w", l.Move, err)
			}
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
		k, frame := child.KeyFrame()
		ce := b.entryOf(k)
		ce.win = true
		cr := frame.ToCanonical(r).String()
		ce.wins = ce.wins.add(cr)
		b.markLost(after)
		if l.Plies != nil {
			// The reply is a fastest win: the game lasts one ply less
			// after it.
			n := *l.Plies - 1
			ce.perfect = ce.perfect.add(cr)
			if err := ce.setAfter(cr, n); err != nil {
				return fmt.Errorf("move %s: %w", l.Move, err)
			}
			if err := b.at(after).setPlies(n); err != nil {
				return fmt.Errorf("move %s, reply %s: %w", l.Move, l.Reply, err)
			}
		}
	}
	if len(covered) == len(classes) {
		e.complete = true
		if !e.win {
			e.loss = true
		}
		if allPlies && len(s.Lines) > 0 {
			// Perfect play: the fastest of the winning moves, else the
			// slowest of the losing ones.
			if err := e.setPlies(1 + best[wins]); err != nil {
				return err
			}
			for i, l := range s.Lines {
				if l.Wins != wins || *l.Plies != best[wins] {
					continue
				}
				for _, x := range classes[lineClass[i]] {
					e.perfect = e.perfect.add(canon[x.String()])
				}
			}
		}
	}
	return nil
}

// linePlies records that the game lasts n plies after each move of class
// (moves of e's position, canon their canonical notation), and so from
// child, the position after them.
func (b *Book) linePlies(e *entry, class []polyomino.Move, canon map[string]string, child *polyomino.Position, n int) error {
	for _, x := range class {
		if err := e.setAfter(canon[x.String()], n); err != nil {
			return err
		}
	}
	return b.at(child).setPlies(n)
}

// Size is the number of positions (up to congruence) the book answers for
// with the files indexed so far (LoadAll indexes the lazy ones).
func (b *Book) Size() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := 0
	for _, e := range b.entries {
		if e.win || e.loss {
			n++
		}
	}
	return n
}

// Lengths is the number of positions (up to congruence) whose game length
// the book knows (LengthOf), with the files indexed so far.
func (b *Book) Lengths() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := 0
	for _, e := range b.entries {
		if e.hasPlies {
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
	return b.LookupWait(pos, true)
}

// LookupWait is Lookup that, without wait, does not index a lazy file that
// may cover pos (0.1-0.3 s for a reply file): it starts indexing it in the
// background and answers from what is indexed, so that a tight budget is
// kept; a later lookup finds the file's positions.
func (b *Book) LookupWait(pos *polyomino.Position, wait bool) (polyomino.Result, bool) {
	g := pos.Game()
	if g.Config().EndRule != polyomino.NormalPlay || g.Config().Variant == polyomino.Capture {
		return polyomino.Result{}, false
	}
	b.fetch(pos, wait)
	b.mu.RLock()
	defer b.mu.RUnlock()
	e := b.entries[polyomino.CanonicalKey(pos)]
	if e == nil || e.win == e.loss {
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
		case e.loss || e.losses.has(c):
			losses = append(losses, polyomino.MoveResult{Move: m, Outcome: polyomino.Loss, Proven: true, Value: -1})
		case e.wins.has(c):
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

// Length is what the book knows of how long the game lasts from a
// position under perfect play (the winner making the fastest win, the
// loser the slowest loss), from its files with plies.
type Length struct {
	// Plies is the game's length from the position.
	Plies int
	// Perfect are moves of perfect play the book names (each a fastest
	// win of a won position, a slowest loss of a lost one; not
	// necessarily all of them), in the position's frame.
	Perfect []polyomino.Move
	// After is how many plies the game lasts after a move, by the move's
	// notation in the position's frame, for the moves the book knows.
	After map[string]int
}

// LengthOf returns what the book knows of the game's length from pos:
// false when it does not know the length. It does not index the lazy
// files that may cover pos: a Lookup of pos does.
func (b *Book) LengthOf(pos *polyomino.Position) (Length, bool) {
	if !MayHold(pos) {
		return Length{}, false
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	e := b.entries[polyomino.CanonicalKey(pos)]
	if e == nil || !e.hasPlies {
		return Length{}, false
	}
	l := Length{Plies: e.plies}
	if len(e.perfect) == 0 && len(e.after) == 0 {
		return l, true
	}
	legal := pos.LegalMoves()
	for i, c := range pos.ToCanonicalMoves(legal) {
		c := c.String()
		if e.perfect.has(c) {
			l.Perfect = append(l.Perfect, legal[i])
		}
		if n, ok := e.after[c]; ok {
			if l.After == nil {
				l.After = map[string]int{}
			}
			l.After[legal[i].String()] = n
		}
	}
	return l, true
}
