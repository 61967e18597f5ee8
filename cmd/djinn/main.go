// Command djinn is the Djinn Claude Code plugin's one binary.
package main

func main() {}
