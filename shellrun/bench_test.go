package shellrun

import (
	"bytes"
	"testing"
)

// benchOutput is a 1 MiB body between the markers, CRLF lines with escapes.
func benchOutput(done bool) []byte {
	var b bytes.Buffer
	b.WriteString(" { . '/tmp/tm1/cmd'; }\r\n")
	b.Write(mk("<S>"))
	line := []byte("\x1b[32mtmx line of output with the prefix tmx and \x1b]0;a title\a inside\x1b[0m\r\n")
	for b.Len() < 1<<20 {
		b.Write(line)
	}
	if done {
		b.Write(mk("<E:0>$ "))
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
	small := mk(" { . '/tmp/tm1/cmd'; }\r\n<S>hello\r\n<E:0>$ ")
	b.Run("small", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Parse(small, tid)
		}
	})
}
