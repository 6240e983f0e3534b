package render

// Every limit of the content policy is a named constant, and every error or
// note a limit causes formats the constant into its text, so a limit is
// self-explaining wherever it bites.
const (
	// DefaultMaxBytes is the text page size used when max_bytes is 0 or omitted.
	DefaultMaxBytes = 51200

	// MaxSliceBytes is the largest page of text one result carries; a larger
	// max_bytes is clamped to it, and a tool-result text item larger than it
	// is sliced.
	MaxSliceBytes = 204800

	// MinMaxBytes is the smallest useful max_bytes: one UTF-8 character of up
	// to four bytes must always fit, or paging could never advance. Smaller
	// positive values are raised to it.
	MinMaxBytes = 4

	// MaxResponseBytes is the ceiling on one whole serialized response: all
	// items of a resource read, or all content items of a tool result. Items
	// that do not fit are omitted and counted in the coverage note.
	MaxResponseBytes = MaxSliceBytes

	// MaxDecodedBlob is the largest blob, after base64 decoding, that is
	// decoded at all; larger blobs are an error.
	MaxDecodedBlob = 50 << 20

	// SpillBudget is the default size bound of the whole spill tree, each
	// file charged in whole SpillBlock blocks; past it the oldest spill
	// files are evicted.
	SpillBudget = 512 << 20

	// SpillBlock is the unit a spill file's size is rounded up to against
	// the budget, and so the least any file costs: a file holds whole
	// blocks and an inode on disk, and a server sending thousands of 3-byte
	// images must be charged for the disk they take, not for their bytes.
	SpillBlock = 4096

	// MaxSpillFiles is the default bound on how many files the spill tree
	// holds; past it the oldest are evicted whatever their size. It bounds
	// inodes and the work of one rescan of the tree.
	MaxSpillFiles = 10000

	// MaxMetaString is the longest server-supplied metadata string (URI, MIME
	// type, name) kept in a bounded result; longer ones are clamped.
	MaxMetaString = 4096

	// ContextLines is how many lines of context surround each line a
	// pattern matches.
	ContextLines = 2
)
