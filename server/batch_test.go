package server

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFitBatch(t *testing.T) {
	big := json.RawMessage(`{"content":"` + strings.Repeat("x", 200_000) + `"}`)
	out := batchOut{}
	for i := 0; i < 4; i++ {
		out.Results = append(out.Results, batchRow{Index: i, Tool: "show_buffer", Success: true, StructuredContent: big})
	}
	fitBatch(&out)
	b, _ := json.Marshal(out)
	if len(b) > batchBudget || !out.ResponseTruncated {
		t.Fatalf("fitBatch: %d bytes, truncated %v", len(b), out.ResponseTruncated)
	}
	if out.Results[0].StructuredContent != nil || out.Results[1].StructuredContent != nil || out.Results[3].StructuredContent == nil {
		t.Errorf("rows must lose structured_content from the first on")
	}
	if out.ResponseTruncatedBytes != 2*(len(big)-len("null")) {
		t.Errorf("response_truncated_bytes = %d, want %d", out.ResponseTruncatedBytes, 2*(len(big)-4))
	}

	small := batchOut{Results: []batchRow{{Tool: "list_sessions", Success: true, StructuredContent: json.RawMessage(`{}`)}}}
	fitBatch(&small)
	if small.ResponseTruncated || small.Results[0].StructuredContent == nil {
		t.Errorf("a small batch was cut")
	}
}
