package teeko

// Counts is a number of positions by outcome.
type Counts struct {
	BlackWins, RedWins, Draws int64
}

// Total returns the number of positions counted.
func (c Counts) Total() int64 { return c.BlackWins + c.RedWins + c.Draws }

func (c *Counts) add(v Value, weight int64) {
	switch v.Outcome {
	case BlackWins:
		c.BlackWins += weight
	case RedWins:
		c.RedWins += weight
	default:
		c.Draws += weight
	}
}

// Stats describes the tablebase of one rule set seen with one drop style.
// Positions are counted one by one, not up to symmetry.
type Stats struct {
	Rules     Rules
	DropStyle DropStyle
	// MovePhase counts the positions with all eight pieces down and Black to
	// move in which Black has no winning configuration (those cannot arise),
	// including the games already over. With Red to move the numbers are the
	// same with the colours swapped. It does not depend on the drop style.
	MovePhase Counts
	// MovePhaseOver is how many of those are already over: Red has a
	// configuration or Black cannot slide.
	MovePhaseOver int64
	// DropLevels[k] counts the positions with k pieces down (Black has
	// ceil(k/2) pieces, Red floor(k/2)) and the colour of piece k+1 to drop,
	// valued with the drop style; at k = 7 it includes the games Black has
	// already won. DropPhase is their sum over k = 0..7.
	DropLevels [DropPlies]Counts
	DropPhase  Counts
	// EmptyBoard is the value of the game from the start.
	EmptyBoard Value
	// LongestWinPlies is the longest forced win, in plies counting the
	// winning ply, over all move-phase positions.
	LongestWinPlies int
}

type moveStats struct {
	counts     Counts
	over       int64
	longestWin int
}

// Stats returns the statistics of the tablebase for a drop style. They are
// computed on the first call for each style (a scan of the tables, some
// milliseconds) and kept.
func (tb *Tablebase) Stats(style DropStyle) (Stats, error) {
	if !style.valid() {
		return Stats{}, errorf(ErrBadDropStyle, "unknown drop style %d", style)
	}
	tb.moveOnce.Do(tb.computeMoveStats)
	tb.statsOnce[style].Do(func() {
		st := Stats{
			Rules: tb.rules, DropStyle: style,
			MovePhase: tb.moveStats.counts, MovePhaseOver: tb.moveStats.over,
			LongestWinPlies: tb.moveStats.longestWin,
			EmptyBoard:      tb.value(Start(tb.rules), style),
		}
		for k := 0; k < DropPlies; k++ {
			l := tb.g.levels[k]
			val := tb.byStyle[style][k]
			mover := DropColor(k)
			var byByte [256]int64
			for cls := range l.ct.rep {
				w := int64(l.ct.orbit[cls])
				for _, b := range val[cls*l.per : (cls+1)*l.per] {
					byByte[b] += w
				}
			}
			for b, n := range byByte {
				st.DropLevels[k].add(decodeValue(uint8(b), mover), n)
			}
			st.DropPhase.BlackWins += st.DropLevels[k].BlackWins
			st.DropPhase.RedWins += st.DropLevels[k].RedWins
			st.DropPhase.Draws += st.DropLevels[k].Draws
		}
		tb.stats[style] = st
	})
	return tb.stats[style], nil
}

func (tb *Tablebase) computeMoveStats() {
	l := tb.g.levels[DropPlies]
	win := tb.g.isWin[tb.rules]
	var ms moveStats
	var byByte [256]int64
	for cls, rep := range l.ct.rep {
		if win[colexRank(rep)] {
			continue // Black to move with a configuration cannot arise
		}
		w := int64(l.ct.orbit[cls])
		for _, b := range tb.move[cls*l.per : (cls+1)*l.per] {
			byByte[b] += w
		}
	}
	for b, n := range byByte {
		if n == 0 {
			continue
		}
		v := decodeValue(uint8(b), Black)
		ms.counts.add(v, n)
		if b == 1 {
			ms.over += n
		}
		if v.Outcome == BlackWins {
			ms.longestWin = max(ms.longestWin, v.Plies)
		}
	}
	tb.moveStats = ms
}
