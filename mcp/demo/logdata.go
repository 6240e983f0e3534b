package demo

import (
	"strconv"
	"sync"
)

// The 2 MiB application log is generated lazily, once per process, on the
// first read of LogURI, so that starting the server costs nothing.
// Generation takes about 3 ms (see BenchmarkAppLog) and is deterministic: a
// fixed seed, no clock, no math/rand. Its size is exact (LogSize), so the
// listing can announce it before it exists.

const (
	appLogDate = "2025-06-14"
	appLogSeed = 0x6f776c2d6c6f67 // "owl-log"
	// maxEventBytes bounds one generated event (a line, or an error with its
	// stack trace); the exact-size filler relies on it.
	maxEventBytes = 1024
	// dailyLogEvents is how many events a demo://logs/{date} log holds.
	dailyLogEvents = 240
)

var appLog = sync.OnceValue(generateAppLog)

// generateAppLog builds the LogSize bytes served at LogURI.
func generateAppLog() []byte {
	w := newLogWriter(appLogDate, appLogSeed, LogSize)
	for len(w.b) < LogSize-maxEventBytes {
		w.event()
	}
	w.fill(LogSize)
	return w.b
}

// dailyLog returns the small generated log for one day (date is YYYY-MM-DD).
func dailyLog(date string) []byte {
	w := newLogWriter(date, seedOf(date), dailyLogEvents*110)
	for range dailyLogEvents {
		w.event()
	}
	return w.b
}

// logWriter appends realistic log lines: a timestamp, a level, a component,
// a request id and a message, with an occasional stack trace after an error.
type logWriter struct {
	b    []byte
	r    *prng
	date string
	ms   int // milliseconds since midnight
}

func newLogWriter(date string, seed uint64, capacity int) *logWriter {
	return &logWriter{b: make([]byte, 0, capacity), r: newPRNG(seed), date: date, ms: 6*3600*1000 + 12}
}

// head appends "2025-06-14T06:00:00.012Z INFO  [http] req=1a2b3c4d ".
func (w *logWriter) head(level, component string) {
	w.ms += 3 + w.r.intn(380)
	ms := w.ms % (24 * 3600 * 1000)
	w.b = append(w.b, w.date...)
	w.b = append(w.b, 'T')
	w.b = append2(w.b, ms/3600000)
	w.b = append(w.b, ':')
	w.b = append2(w.b, ms/60000%60)
	w.b = append(w.b, ':')
	w.b = append2(w.b, ms/1000%60)
	w.b = append(w.b, '.')
	w.b = append2(w.b, ms%1000/10)
	w.b = append(w.b, byte('0'+ms%10))
	w.b = append(w.b, "Z "...)
	w.b = append(w.b, level...)
	for range 6 - len(level) {
		w.b = append(w.b, ' ')
	}
	w.b = append(w.b, '[')
	w.b = append(w.b, component...)
	w.b = append(w.b, "] req="...)
	w.b = appendHex(w.b, w.r.next(), 8)
	w.b = append(w.b, ' ')
}

func (w *logWriter) num(n int)    { w.b = strconv.AppendInt(w.b, int64(n), 10) }
func (w *logWriter) str(s string) { w.b = append(w.b, s...) }
func (w *logWriter) end()         { w.b = append(w.b, '\n') }

var (
	httpMethods = []string{"GET", "GET", "GET", "POST", "PUT", "DELETE"}
	httpPaths   = []string{"/api/orders/", "/api/customers/", "/api/invoices/", "/api/cart/", "/api/products/"}
	httpOK      = []int{200, 200, 200, 201, 204, 304}
	dbQueries   = []string{"orders.by_customer", "orders.insert", "invoices.by_month", "products.search", "customers.by_email"}
	cacheKeys   = []string{"order:", "customer:", "product:", "session:"}
	jobKinds    = []string{"email.send", "invoice.render", "report.nightly", "stock.sync", "webhook.deliver"}
	declines    = []string{"insufficient_funds", "card_expired", "do_not_honor", "fraud_suspected"}
)

// event appends one event. The mix is about 30% DEBUG, 52% INFO, 12% WARN
// and 6% ERROR.
func (w *logWriter) event() {
	r := w.r
	switch n := r.intn(100); {
	case n < 15:
		w.head("DEBUG", "db")
		w.str("query ")
		w.str(pick(r, dbQueries))
		w.str(" rows=")
		w.num(r.intn(500))
		w.str(" took=")
		w.num(1 + r.intn(40))
		w.str("ms")
	case n < 30:
		w.head("DEBUG", "cache")
		if r.intn(3) == 0 {
			w.str("miss key=")
		} else {
			w.str("hit key=")
		}
		w.str(pick(r, cacheKeys))
		w.num(1000 + r.intn(9000))
	case n < 62:
		w.head("INFO", "http")
		w.str(pick(r, httpMethods))
		w.str(" ")
		w.str(pick(r, httpPaths))
		w.num(1 + r.intn(5000))
		w.str(" status=")
		w.num(pick(r, httpOK))
		w.str(" duration=")
		w.num(2 + r.intn(180))
		w.str("ms bytes=")
		w.num(120 + r.intn(48000))
		w.str(" user=u-")
		w.num(1000 + r.intn(64))
	case n < 70:
		w.head("INFO", "auth")
		w.str("login ok user=u-")
		w.num(1000 + r.intn(64))
		if r.intn(2) == 0 {
			w.str(" method=password")
		} else {
			w.str(" method=sso provider=okta")
		}
	case n < 78:
		w.head("INFO", "worker")
		w.str("job ")
		w.str(pick(r, jobKinds))
		w.str(" id=job-")
		w.num(10000 + r.intn(90000))
		w.str(" done in ")
		w.num(20 + r.intn(4000))
		w.str("ms")
	case n < 82:
		w.head("INFO", "scheduler")
		w.str("cron ")
		w.str(pick(r, []string{"nightly-report", "stock-sync", "cache-warmup", "session-gc"}))
		w.str(" fired, next run in ")
		w.num(1 + r.intn(59))
		w.str("m")
	case n < 86:
		w.head("WARN", "http")
		w.str("slow request POST /api/checkout took ")
		w.num(1000 + r.intn(4000))
		w.str("ms (threshold 1000ms)")
	case n < 89:
		w.head("WARN", "db")
		w.str("connection pool at ")
		in := 24 + r.intn(9)
		w.num(in * 100 / 32)
		w.str("% (")
		w.num(in)
		w.str("/32 in use)")
	case n < 94:
		w.head("WARN", "auth")
		w.str("failed login user=u-")
		w.num(1000 + r.intn(64))
		w.str(" from 10.0.")
		w.num(r.intn(256))
		w.str(".")
		w.num(1 + r.intn(254))
		w.str(" (attempt ")
		w.num(1 + r.intn(5))
		w.str(")")
	case n < 96:
		w.head("ERROR", "payments")
		w.str("charge ch_")
		w.b = appendHex(w.b, r.next(), 12)
		w.str(" declined: ")
		w.str(pick(r, declines))
	case n < 98:
		w.head("ERROR", "db")
		w.str("deadlock detected on table orders, retrying (attempt ")
		w.num(1 + r.intn(3))
		w.str("/3)")
	default:
		w.head("ERROR", "worker")
		w.str("panic recovered in job invoice.render id=job-")
		w.num(10000 + r.intn(90000))
		w.str(`: template "invoice.tmpl": missing key "vat_rate"`)
		w.end()
		w.str("goroutine ")
		w.num(100 + r.intn(9000))
		w.str(" [running]:\norders/worker.(*Renderer).Render(0xc000")
		w.b = appendHex(w.b, r.next(), 6)
		w.str(")\n\t/srv/orders/worker/render.go:88 +0x1f4\norders/worker.(*Pool).run(0xc000")
		w.b = appendHex(w.b, r.next(), 6)
		w.str(")\n\t/srv/orders/worker/pool.go:141 +0x92\ncreated by orders/worker.Start in goroutine 1\n\t/srv/orders/worker/pool.go:57 +0x1a5")
	}
	w.end()
}

// fill appends DEBUG heap-sample lines so the log is exactly size bytes
// long. It needs between 200 and maxEventBytes bytes of room.
func (w *logWriter) fill(size int) {
	for room := size - len(w.b); room > 0; room = size - len(w.b) {
		lineLen := room
		if room > 400 {
			lineLen = room / 2
		}
		start := len(w.b)
		w.head("DEBUG", "gc")
		w.str("heap sample ")
		for len(w.b)-start < lineLen-1 {
			w.b = append(w.b, hexDigits[w.r.intn(16)])
		}
		w.end()
	}
}

const hexDigits = "0123456789abcdef"

func append2(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }

// appendHex appends the low digits hex digits of v.
func appendHex(b []byte, v uint64, digits int) []byte {
	for i := digits - 1; i >= 0; i-- {
		b = append(b, hexDigits[(v>>(4*uint(i)))&0xf])
	}
	return b
}
