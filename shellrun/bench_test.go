package shellrun

import (
	"bytes"
	"testing"
)

// benchOutput is a 1 MiB body between the markers, CRLF lines with escapes.
func benchOutput(done bool) []byte {
	var b bytes.Buffer
	b.WriteString(" . '/tmp/tm1/cmd'\r\n" + tid + "_S\r\n")
	line := []byte("\x1b[32mtmx line of output with the prefix tmx and _E inside\x1b[0m\r\n")
	for b.Len() < 1<<20 {
		b.Write(line)
	}
	if done {
		b.WriteString(tid + "_E 0 " + tid + "_D\r\n$ ")
	}
	return b.Bytes()
}

func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct {
		name string
		done bool
	}{{"done-1MiB", true}, {"running-1MiB", false}} {
		out := benchOutput(bc.done)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				if p := Parse(out, tid); p.Done != bc.done {
					b.Fatal("wrong parse")
				}
			}
		})
	}
	small := []byte(" . '/tmp/tm1/cmd'\r\n" + tid + "_S\r\nhello\r\n" + tid + "_E 0 " + tid + "_D\r\n$ ")
	b.Run("small", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Parse(small, tid)
		}
	})
}
