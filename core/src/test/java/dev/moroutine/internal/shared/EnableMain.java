package dev.moroutine.internal.shared;

/**
 * Run by {@link SharedFilesTest#openingAPoolNeedsNoNativeAccessFlag} in a JVM started
 * without {@code --enable-native-access}: what opening an isolated pool does to shared memory.
 */
public final class EnableMain {

    private EnableMain() {}

    public static void main(String[] args) throws Exception {
        try {
            SharedFiles.enable();
            SharedFiles.disable();
            System.out.println("enabled and disabled");
        } catch (UnsupportedOperationException refused) {
            System.out.println("not enabled: " + refused.getMessage());
        }
    }
}
