package common

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// ImageMode is how images are drawn.
type ImageMode int

// The ways howl draws an image. Half-blocks work in any colour terminal
// (and under tmux); the graphics protocols draw real pixels where the
// terminal speaks them.
const (
	ImageHalfBlocks ImageMode = iota
	ImageKitty
	ImageITerm2
)

// String names the mode as HOWL_IMAGES spells it.
func (m ImageMode) String() string {
	return [...]string{"halfblocks", "kitty", "iterm2"}[m]
}

// DetectImageMode picks the image mode from the environment. HOWL_IMAGES
// (halfblocks, kitty or iterm2) wins; inside tmux or screen, which do not
// pass graphics through by default, half-blocks are used; otherwise kitty
// and Ghostty get the kitty protocol (with Unicode placeholders), and
// iTerm2 and WezTerm the iTerm2 inline-image protocol.
func DetectImageMode(getenv func(string) string) ImageMode {
	switch strings.ToLower(getenv("HOWL_IMAGES")) {
	case "kitty":
		return ImageKitty
	case "iterm2", "iterm":
		return ImageITerm2
	case "halfblocks", "blocks", "off":
		return ImageHalfBlocks
	}
	if getenv("TMUX") != "" || strings.HasPrefix(getenv("TERM"), "screen") {
		return ImageHalfBlocks
	}
	term, prog := getenv("TERM"), getenv("TERM_PROGRAM")
	switch {
	case getenv("KITTY_WINDOW_ID") != "" || term == "xterm-kitty" || term == "xterm-ghostty" || prog == "ghostty":
		return ImageKitty
	case prog == "iTerm.app" || prog == "WezTerm" || getenv("LC_TERMINAL") == "iTerm2":
		return ImageITerm2
	}
	return ImageHalfBlocks
}

// iterm2SealMark is replaced in the final frame by a zero-width token that
// changes with the picture's other lines (see iterm2Seal).
const ITerm2SealMark = "\x1b[39m"

// iterm2Seal makes the line that carries an iTerm2 picture change whenever
// any other line the picture covers changes, so bubbletea's renderer, which
// repaints changed lines only, redraws the picture after any repaint that
// cleared part of it.
func ITerm2Seal(lines []string) []string {
	for i, l := range lines {
		at := strings.Index(l, "\x1b]1337;File=")
		if at < 0 {
			continue
		}
		rows := 1
		if j := strings.Index(l[at:], "height="); j >= 0 {
			fmt.Sscanf(l[at+j+len("height="):], "%d", &rows)
		}
		h := fnv.New32a()
		for k := max(i-rows+1, 0); k < i; k++ {
			h.Write([]byte(lines[k]))
		}
		sum := h.Sum32()
		token := fmt.Sprintf("\x1b[38;5;%dm\x1b[38;5;%dm\x1b[39m", sum&0xFF, (sum>>8)&0xFF)
		lines[i] = l[:at] + strings.Replace(l[at:], ITerm2SealMark, token, 1)
	}
	return lines
}
