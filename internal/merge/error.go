package merge

// Error reports an input ODLM's merge cannot handle (ODLM panics on it).
// Path is relative to the merged root, using dotted keys and [i] indices
// (for example "spec.containers[1]"); it is empty for the root itself.
type Error struct {
	Path string
	Msg  string
}

// Error returns "path: msg", or just msg when Path is empty.
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}
