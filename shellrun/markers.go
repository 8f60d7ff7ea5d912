package shellrun

// markerFormats returns printf FORMAT strings, of octal escapes wherever the id appears, that
// print the start marker, the end marker (its status is the %d argument) and a failure marker
// with reason. The id never appears literally in what a shell reads, echoes or traces.
func markerFormats(id string) (start, end string) {
	pre := `\033]6973;` + octalFormat(id)
	return pre + `;S\007`, pre + `;E;%d\007`
}

// failFormat is the printf FORMAT of a failure marker; reason is plain ASCII words.
func failFormat(id, reason string) string {
	return `\033]6973;` + octalFormat(id) + `;X;` + octalFormat(reason) + `\007`
}
