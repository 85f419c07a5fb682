module github.com/gamesolver/gamesolver

go 1.26.8
