package state

// NewDoc is newDoc for the package's external tests: a fresh value of the
// Go type of a document kind (panicking on a kind without one).
func NewDoc(k Kind) any {
	v, err := newDoc(k)
	if err != nil {
		panic(err)
	}
	return v
}
