module com.example.app {
    requires dev.moroutine;

    // dev.moroutine reads the static final fields that hold your moroutines, and builds the
    // records you use as shared structs: open the packages that hold them to it.
    opens com.example.app to dev.moroutine;
}
