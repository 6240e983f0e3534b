package llm

import "time"

// RetryPolicy bounds how howl retries a model request that failed in a way
// worth retrying: a rate limit (429), an overloaded or failing provider
// (5xx), or a network failure. A request that already streamed text is
// never retried (the person has read it); its error is reported instead.
type RetryPolicy struct {
	// MaxRetries is how many times one request is retried (0: never).
	MaxRetries int
	// InitialDelay is the first backoff when the provider gives no
	// Retry-After; each retry doubles it.
	InitialDelay time.Duration
	// MaxDelay is the longest single wait, Retry-After included: a provider
	// asking for more is not waited for, and the error says how long it asked.
	MaxDelay time.Duration
}

// DefaultRetryPolicy retries 3 times, backing off 1 s, 2 s, 4 s unless the
// provider's Retry-After says otherwise, and waits at most 60 s at a time.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 3, InitialDelay: time.Second, MaxDelay: 60 * time.Second}

// wait returns how long to wait before retry number attempt (1-based) after
// e, or false when howl should give up.
func (p RetryPolicy) wait(attempt int, e *Error) (time.Duration, bool) {
	if !e.retryable() || attempt > p.MaxRetries {
		return 0, false
	}
	d := p.InitialDelay << (attempt - 1)
	if e.RetryAfter > 0 {
		d = e.RetryAfter
	}
	if p.MaxDelay > 0 && d > p.MaxDelay {
		if e.RetryAfter > 0 {
			return 0, false
		}
		d = p.MaxDelay
	}
	return d, true
}
