package capture

// table is the transposition table of one Solve: a power of two of
// two-entry buckets, indexed by the low bits of the key's first word.
//
// An entry is 32 bytes:
//
//	bytes  0..15  key      the 128-bit position key (both words compared)
//	bytes 16..23  core     pieces at the same place in every position of
//	                       the proof (see search.go)
//	byte  24      val      +1 win / -1 loss / 0 draw for the player to move
//	byte  25      kmin     fewest pieces on the board in the proof
//	byte  26      kmax     most pieces on the board in the proof
//	byte  27      work     log2 of the nodes the proof took (replacement)
//	bytes 28..29  plies    the depth of the proof: a win or a loss within
//	                       that many plies (the length search's bound)
//	bytes 30..31  padding
//
// Only values that do not depend on the history before the position are
// stored, with what the repetition filter needs to tell whether a later
// history could reach into the proof (search.go explains).
type table struct {
	buckets []ttBucket
	mask    uint64
}

// Table is a transposition table shared by searches of one game's
// positions (Options.Table): Solve, then Length on the same position,
// which uses the proof's entries whose depth fits under its horizon (a
// length search after a proof so starts with most of its work done).
// Entries hold only values that no history can change (see search.go),
// so they serve any later search of the game. One search at a time.
type Table struct {
	game *Game
	t    *table
}

// NewTable makes a table of about megabytes MB (16 when 0) for the
// positions of g.
func NewTable(g *Game, megabytes int) *Table {
	return &Table{game: g, t: newTable(tableLog2(Options{TableMB: megabytes}))}
}

type ttEntry struct {
	key  posKey
	core pieceSet
	val  int8
	kmin uint8
	kmax uint8
	work uint8
	// plies: the proof decides the value within this many plies.
	plies uint16
}

type ttBucket [2]ttEntry

func newTable(bucketsLog2 int) *table {
	n := 1 << bucketsLog2
	return &table{buckets: make([]ttBucket, n), mask: uint64(n - 1)}
}

func (t *table) probe(k posKey) (ttEntry, bool) {
	b := &t.buckets[k.a&t.mask]
	for i := range b {
		if b[i].key == k && b[i].work != 0 {
			return b[i], true
		}
	}
	return ttEntry{}, false
}

// store keeps e, replacing the entry of the same key, an empty slot, or
// the entry that took less work.
func (t *table) store(e ttEntry) {
	if e.work == 0 {
		e.work = 1
	}
	b := &t.buckets[e.key.a&t.mask]
	victim := 0
	switch {
	case b[0].key == e.key || b[0].work == 0:
	case b[1].key == e.key || b[1].work == 0:
		victim = 1
	case b[1].work < b[0].work:
		victim = 1
	}
	b[victim] = e
}
