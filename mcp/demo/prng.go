package demo

// prng is a splitmix64 generator. The demo data must be byte-identical across
// processes, machines and Go releases, so it does not depend on the
// algorithms behind math/rand.
type prng struct{ state uint64 }

func newPRNG(seed uint64) *prng { return &prng{state: seed} }

func (r *prng) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n). n must be > 0.
func (r *prng) intn(n int) int { return int(r.next() % uint64(n)) }

// pick returns one element of s.
func pick[T any](r *prng, s []T) T { return s[r.intn(len(s))] }

// seedOf hashes s (FNV-1a) into a seed, so a date or an id names its own data.
func seedOf(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
