package dev.moroutine.internal.shared;

import dev.moroutine.shared.Tuple;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** The descriptor of a tuple: its elements' descriptors, laid out in order (see {@link Layouts}). */
final class TupleDesc extends Desc<Tuple> {

    private final List<Desc<?>> elements;
    private final MemoryLayout layout;
    private final long[] offsets;

    TupleDesc(List<Desc<?>> elements) {
        super(elements.stream().map(Object::toString).collect(Collectors.joining(", ", "tuple(", ")")), List.class, false);
        this.elements = List.copyOf(elements);
        List<MemoryLayout> laid = new ArrayList<>();
        for (int i = 0; i < elements.size(); i++) {
            laid.add(elements.get(i).layout().withName(Integer.toString(i)));
        }
        layout = Layouts.struct(toString(), laid);
        offsets = Layouts.offsets(laid);
    }

    @Override
    public MemoryLayout layout() {
        return layout;
    }

    @Override
    Tuple at(MemorySegment segment, long offset) {
        return new TupleCell(this, segment, offset);
    }

    int size() {
        return elements.size();
    }

    Desc<?> element(int i) {
        return elements.get(i);
    }

    long offset(int i) {
        return offsets[i];
    }
}
