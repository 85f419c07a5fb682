package polyomino

// heuristicMove is the heuristic player's choice among the legal moves of
// the player to move that are not excluded (moves the search proved bad).
func heuristicMove(pos *Position, excluded []Move) (Move, bool) {
	h := newHeuristic(pos)
	return h.best(excluded)
}
