package render

// Code names the kind of a render [Error]. Codes are stable wire text: they
// appear in the "code" field of per-item errors.
type Code string

// The kinds of render errors.
const (
	// CodeInvalidArgument: offset or max_bytes is out of range.
	CodeInvalidArgument Code = "invalid_argument"
	// CodeInvalidPattern: the pattern is not a valid RE2 regular expression.
	CodeInvalidPattern Code = "invalid_pattern"
	// CodeInvalidContent: a content item is malformed (not an object, both or
	// neither of text and blob, a field of the wrong JSON type).
	CodeInvalidContent Code = "invalid_content"
	// CodeInvalidBase64: a blob or data field is not valid base64.
	CodeInvalidBase64 Code = "invalid_base64"
	// CodeBlobTooLarge: a blob decodes to more than MaxDecodedBlob bytes.
	CodeBlobTooLarge Code = "blob_too_large"
	// CodeSpillFailed: the spill file could not be written.
	CodeSpillFailed Code = "spill_failed"
	// CodeInvalidResult: a tool result is not a JSON object.
	CodeInvalidResult Code = "invalid_result"
)

// Error is a teaching error: its message says what was wrong, the value
// received and the fix. Match it with errors.As and switch on Code; Err, when
// set, is the underlying cause (a regexp or I/O error).
type Error struct {
	Code    Code
	Message string
	Err     error
}

// Error returns the teaching message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

func newError(code Code, cause error, message string) *Error {
	return &Error{Code: code, Message: message, Err: cause}
}
