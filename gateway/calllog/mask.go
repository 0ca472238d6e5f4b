package calllog

// Masker writes a request body as the call log does: the part the queue
// copies (the first 64 KiB), its sensitive values masked by the Redactor,
// then cut to the logged size with the truncation marker. The shipper
// masks every entry with one, and whoever shows a body beside the call
// log (the console's slow calls) uses one built from the same settings,
// so a body is never shown masked another way. Safe for concurrent use.
type Masker struct {
	redactor *Redactor
	maxBytes int
}

// NewMasker returns the Masker of the call log's settings: the redacted
// field names (nil: DefaultRedactFields) and the most body bytes kept
// after redaction (log.maxBodyBytes; below 1 keeps none, only the
// marker).
func NewMasker(fields []string, maxBodyBytes int) *Masker {
	return &Masker{redactor: NewRedactor(fields), maxBytes: max(maxBodyBytes, 0)}
}

// Append appends body, masked and cut as the call log writes it, to dst.
func (m *Masker) Append(dst, body []byte) []byte {
	omitted := 0
	if len(body) > maxCopyBytes {
		body, omitted = body[:maxCopyBytes], len(body)-maxCopyBytes
	}
	return m.appendCopied(dst, body, omitted)
}

// appendCopied masks a body the queue already cut (omitted bytes left
// out). Redaction writes into dst, truncation after it, and the result
// moves to where the redaction began: one buffer, never aliasing body.
func (m *Masker) appendCopied(dst, body []byte, omitted int) []byte {
	start := len(dst)
	redacted := m.redactor.Append(dst, body)
	n := len(redacted)
	out := AppendTruncated(redacted, redacted[start:n], m.maxBytes, omitted)
	return append(out[:start], out[n:]...)
}
