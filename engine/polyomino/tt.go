package polyomino

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Table is a transposition table shared by the search goroutines (and, if
// the caller passes the same Table to several Solve calls, by those calls).
// It holds 2^k buckets of 4 entries; a bucket is one 64-byte cache line.
//
// An entry is two 64-bit words, written and read without locks:
//
//	word 0: key.a XOR word 1   (a torn write fails the check and is a miss)
//	word 1: bits  0-15  check: key.b itself when it fits (a pool of at most
//	                    16 pieces: exact), else the low 16 bits of mix64(key.b)
//	        bits 16-23  value, int8: +1/-1 win/loss (normal play) or the
//	                    score difference for the player to move
//	        bits 24-25  bound: 1 exact, 2 lower bound, 3 upper bound
//	        bits 26-31  work: bit length of the node count of the subtree
//	        bits 32-39  generation of the Solve call that stored it
//	        bits 40-63  zero
//
// The bucket index comes from mix64(key.a ^ mix64(key.b)), so a false hit
// needs the same bucket, the same key.a (exact on boards up to 8 x 8) and
// the same 16-bit check; on boards up to 8 x 8 with a pool of at most 16
// pieces (Pentominoes) none can happen. Replacement: an entry with the same key is
// overwritten; otherwise the entry of an older generation, then of least
// work, gives way.
type Table struct {
	words []atomic.Uint64
	mask  uint64 // bucket count - 1
	gen   atomic.Uint32
	mu    sync.Mutex
	game  *Game // the game whose positions the table holds
	// id names the table's contents for the endgame tables (nearPool):
	// new at NewTable and at each Clear.
	id atomic.Uint64
	// free releases memory mapped outside the Go heap (nil: none).
	free func()
	// warm: a search has used the table since it was made or cleared, so
	// it may hold results (the root moves are then looked up first).
	warm atomic.Bool
}

// Prefault touches every page of the table's memory, without changing an
// entry (an atomic add of 0), so that the searches that use it next do not
// pay for the first touch: the kernel maps a table's 64 MB as it is first
// written, which cost a cold search of the 5 x 5 tetromino game 0.4-0.6 s
// on this project's VM (10-30 ms once the memory had been used).
func (t *Table) Prefault() {
	const stride = 4096 / 8 // a 4 KiB page's words
	for i := 0; i < len(t.words); i += stride {
		t.words[i].Add(0)
	}
}

// Release frees a table mapped outside the Go heap at once (the collector
// would free it later); the table must not be used afterwards.
func (t *Table) Release() { t.release() }

// release frees a table mapped outside the Go heap at once; the table must
// not be used afterwards.
func (t *Table) release() {
	if t.free != nil {
		t.free()
		t.free, t.words = nil, nil
	}
}

// nearPool keeps the workers' endgame tables between searches, for every
// Table: one a finished worker handed back is reused, its entries kept
// when the next search is the same Table's (values of positions, true in
// any search of its game), cleared otherwise. (A pool of each Table's own
// kept the Table alive for two collections after its last use, the
// runtime holding every pool used: tables made per request, a quick
// try's, then piled up with their endgame tables, and a load audit saw
// the heap pass 6 GB in 90 s.)
var nearPool sync.Pool

// nearBuf is an endgame table of nearPool.
type nearBuf struct {
	owner   uint64 // the id of the Table whose positions it holds
	entries []nearEntry
}

// tableIDs numbers the tables' contents (Table.id).
var tableIDs atomic.Uint64

// nearTable returns an endgame table for a worker of a search with t: one
// a finished worker handed back (kept or cleared), or a new one (on a huge
// page where the system has them).
func (t *Table) nearTable() *nearBuf {
	id := t.id.Load()
	if b, ok := nearPool.Get().(*nearBuf); ok {
		if b.owner != id {
			clear(b.entries)
			b.owner = id
		}
		return b
	}
	return &nearBuf{owner: id, entries: newNearTable()}
}

const (
	boundExact = 1
	boundLower = 2
	boundUpper = 3
	bucketSize = 4
)

// NewTable makes a table of about sizeMB megabytes (rounded down to a
// power of two, at least 64 KiB).
func NewTable(sizeMB int) *Table {
	bytes := uint64(max(sizeMB, 0)) << 20
	buckets := uint64(1024)
	for buckets*2*64 <= bytes {
		buckets *= 2
	}
	t := &Table{mask: buckets - 1}
	t.words = newWords(t, int(buckets*bucketSize*2))
	t.id.Store(tableIDs.Add(1))
	return t
}

// Entries is the table's capacity in entries.
func (t *Table) Entries() int { return len(t.words) / 2 }

// Clear empties the table (not concurrently with a search).
func (t *Table) Clear() {
	clear(t.words)
	t.id.Store(tableIDs.Add(1)) // the endgame tables' entries are not its any more
	t.warm.Store(false)
}

func (t *Table) nextGeneration() { t.gen.Add(1) }

func bucketOf(k ttKey) (check uint64, h uint64) {
	hb := mix64(k.b)
	check = hb & 0xffff
	if k.b < 1<<16 {
		// A common pool of at most 16 pieces: the check is the piece mask
		// itself, and with key.a exact (boards up to 8 x 8) a hit is never
		// false, so proofs do not rest on hashing.
		check = k.b
	}
	return check, mix64(k.a ^ hb)
}

// probe returns the stored value and bound for the key.
func (t *Table) probe(k ttKey) (value int, bound int, ok bool) {
	check, h := bucketOf(k)
	base := (h & t.mask) * bucketSize * 2
	w := t.words[base : base+bucketSize*2]
	for i := 0; i < bucketSize*2; i += 2 {
		d := w[i+1].Load()
		if d&0xffff == check && w[i].Load()^d == k.a && d>>24&3 != 0 {
			return int(int8(d >> 16)), int(d >> 24 & 3), true
		}
	}
	return 0, 0, false
}

// prefetch asks the processor to fetch the bucket of key k.
func (t *Table) prefetch(k ttKey) {
	_, h := bucketOf(k)
	prefetch(unsafe.Pointer(&t.words[(h&t.mask)*bucketSize*2]))
}

// store records a result; nodes is the size of the subtree searched.
func (t *Table) store(k ttKey, value int, bound int, nodes int64) {
	check, h := bucketOf(k)
	base := (h & t.mask) * bucketSize * 2
	w := t.words[base : base+bucketSize*2]
	gen := uint64(t.gen.Load() & 0xff)
	work := uint64(bits.Len64(uint64(nodes)))
	if work > 63 {
		work = 63
	}
	d := check | uint64(uint8(int8(value)))<<16 | uint64(bound)<<24 | work<<26 | gen<<32
	victim, victimScore := 0, uint64(1<<63)
	for i := 0; i < bucketSize*2; i += 2 {
		old := w[i+1].Load()
		if old&0xffff == check && w[i].Load()^old == k.a {
			victim = i
			break
		}
		// Prefer to replace empty entries, then older generations, then
		// the least work.
		score := old >> 26 & 63
		if old>>32&0xff == gen {
			score += 64
		}
		if old == 0 {
			score = 0
		}
		if score < victimScore {
			victim, victimScore = i, score
		}
	}
	w[victim+1].Store(d)
	w[victim].Store(k.a ^ d)
}
