package tmux

import "context"

// PasteBuffer pastes a buffer into a pane; Bracket wraps it in bracketed-paste sequences when
// the pane's program asked for them; Delete deletes the buffer once pasted.
type PasteBuffer struct {
	Buffer, Pane    string
	Bracket, Delete bool
}

func (o *PasteBuffer) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	args := []string{"paste-buffer", "-b", o.Buffer, "-t", o.Pane}
	if o.Bracket {
		args = append(args, "-p")
	}
	if o.Delete {
		args = append(args, "-d")
	}
	return [][]string{args}, nil
}

func (*PasteBuffer) read([][]string) error { return nil }
func (*PasteBuffer) mutates() bool         { return true }

// DeleteBuffer deletes a buffer.
type DeleteBuffer struct{ Buffer string }

func (o *DeleteBuffer) commands() ([][]string, error) {
	return [][]string{{"delete-buffer", "-b", o.Buffer}}, nil
}

func (*DeleteBuffer) read([][]string) error { return nil }
func (*DeleteBuffer) mutates() bool         { return true }

// SaveBuffer reads a buffer's bytes as tmux stores them (save-buffer, where show-buffer may
// escape them), its last max bytes at most: dropped counts those left out before them.
func (s *Server) SaveBuffer(ctx context.Context, name string, max int) (data []byte, dropped int64, err error) {
	return s.SpawnRaw(ctx, nil, max, "save-buffer", "-b", name, "-")
}
