// The tasks that Piscina's workers run: the same as the JMH benchmarks' (see ../src/main/java).

/** The dispatch shapes' task: nothing, so what is measured is the hand-off and the wait. */
export function noop() {
  return 1;
}

/** The seed's isPrime, trial division. */
export function isPrime(n) {
  if (n < 2) return false;
  for (let i = 2; i * i <= n; i++) {
    if (n % i === 0) return false;
  }
  return true;
}
