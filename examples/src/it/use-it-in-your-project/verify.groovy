// The application ran on the module path and computed the right answer (27 takes 111 steps), and
// the JVM warned about nothing: moroutine needs no --enable-native-access or other flag.
def log = new File(basedir, 'build.log').text
assert log.contains('longest Collatz run from 1 to 30: 27, 111 steps')
def jvmWarnings = log.readLines().findAll { it.startsWith('WARNING:') }
assert jvmWarnings.isEmpty()
