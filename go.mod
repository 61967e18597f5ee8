module github.com/djinn-cc/djinn

go 1.26
