package stall

import "flag"

var (
	flagFull   = flag.Bool("stall.full", false, "run the full evaluation (every .go file, every period 1..300)")
	flagGoRoot = flag.String("stall.goroot", "", "Go installation to read (default: go env GOROOT)")
	flagCorpus = flag.String("stall.corpus", "", "directory of transcript *.jsonl files (default: ../shared/corpus/transcripts beside the repository)")
	flagReport = flag.String("stall.report", "", "write the evaluation's figures as Markdown to this file")
)
