package dev.moroutine.internal.shared;

import static java.lang.constant.ConstantDescs.BSM_CLASS_DATA_AT;
import static java.lang.constant.ConstantDescs.CD_MethodHandle;
import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_String;
import static java.lang.constant.ConstantDescs.CD_VarHandle;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;
import static java.lang.constant.ConstantDescs.DEFAULT_NAME;
import static java.lang.constant.ConstantDescs.INIT_NAME;
import static java.lang.invoke.MethodType.methodType;

import java.lang.classfile.ClassBuilder;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDesc;
import java.lang.constant.DynamicConstantDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.invoke.VarHandle.AccessMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Generates the cell class of a struct descriptor: one hidden class per descriptor, a final subclass
 * of {@link StructCell}, made with {@code java.lang.classfile} when the descriptor's first cell is
 * made. Its cells are instances of it, so a call of {@code struct.load()} profiles the record type at
 * the caller and inlines the generated method there, with no dispatch in between (see {@link StructCell}).
 *
 * <h2>The generated class</h2>
 * For {@code record Point(int x, int y)}, two {@code int32} fields at offsets 0 and 4, it is, in
 * Java:
 * <pre>{@code
 * final class StructCell$Point extends StructCell {
 *     StructCell$Point(StructDesc struct, MemorySegment segment, long offset) {
 *         super(struct, segment, offset);
 *     }
 *     public Record load() {
 *         VarHandle.loadLoadFence();
 *         return CONSTRUCTOR.invokeExact((int) X_FIELD.get(segment, offset), (int) Y_FIELD.get(segment, offset));
 *     }
 *     void storeRecord(Object record) {
 *         int x = X.invokeExact(record);
 *         int y = Y.invokeExact(record);
 *         // the checks of check(), none for int32
 *         Memory.putIntOpaque(segment, offset + 0, x);
 *         Memory.putIntOpaque(segment, offset + 4, y);
 *     }
 *     // check(Object) and write(Object): the two halves of storeRecord
 * }
 * }</pre>
 * {@code CONSTRUCTOR}, {@code X} and {@code Y} are the record's canonical constructor and accessors,
 * method handles that {@link StructDesc} made with the access the module already needs (the record's
 * package exported or opened to {@code dev.moroutine}); {@code X_FIELD} and {@code Y_FIELD} are the
 * var handles of the fields in the struct's layout ({@code layout.varHandle(groupElement("x"))}).
 * The class loads them with {@code ldc} from its class data ({@link MethodHandles#classDataAt}), so
 * they are constants and the JIT inlines through them: no boxing, no array, no lookup per field. The
 * class names no user type (its method descriptors use primitives, {@code Object} and {@code Record},
 * and the handles cast), so it lives in this package, where it reaches {@link Memory} and the cells, and needs no
 * access to the user's module or class loader.
 *
 * <h2>How load reads the scalars</h2>
 * Every access to a memory segment checks it: the offset in bounds, aligned, the segment's arena
 * alive. The fields' var handles all check the same thing, the whole struct at {@code offset},
 * so the JIT checks once per load, not once per field, where nothing between the reads stops it:
 * an opaque read does (the JIT keeps every other memory access on its side, so each one checks the
 * segment anew, and loading two {@code int32}s cost twice a plain record's copy). So a scalar of 32
 * bits or fewer is read plain, after one {@link VarHandle#loadLoadFence()} that
 * keeps what opaque mode promised those reads between loads: never torn (a memory-layout var
 * handle's plain access to an aligned value of 32 bits or fewer is atomic; only 64-bit plain access
 * may tear, so those fields stay opaque), and read afresh by every load (no read moves before the
 * fence, so none is taken out of a loop that polls the struct, and a later load cannot see an older
 * write than an earlier one). {@code StructPollTest} and {@code StructCoherenceTest} in core-jcstress
 * check both; they cannot fail without the fence on JDK 25, whose C2 happens not to hoist or reorder
 * these reads anyway, but nothing promises that, hence the fence.
 * A 64-bit scalar is read opaque, an atomic volatile, as their own cells read them ({@link #SCALARS}).
 * A store writes each field as its cell does, opaque or volatile.
 *
 * <h2>Per field</h2>
 * <ul>
 *   <li>a scalar ({@link #SCALARS}): read as above, then converted from the layout's carrier where it
 *       differs (an unsigned one widened); written by a static put at a constant offset, the value kept
 *       primitive, an unsigned one's range checked before anything is written;</li>
 *   <li>a nested struct: the nested cell's own generated methods ({@code load}, {@code check},
 *       {@code write}), a call site of this class that only ever sees that cell's class;</li>
 *   <li>a lock: the member cell itself on load; a lock is never checked nor written;</li>
 *   <li>any other (a string, bytes, a tuple): the member cell's {@link Cell} methods. Each call site
 *       belongs to the generated class, so it stays monomorphic and inlines.</li>
 * </ul>
 * A field whose check may refuse a value sets a local {@code where} to its name ({@code "Point.y"})
 * before its check; one handler around all the checks turns an {@link IllegalArgumentException}
 * into one that starts with {@code where} ({@link #refused}).
 */
final class StructAccessors {

    /**
     * How the generated code reads and writes a scalar: {@code read}, the access mode of its field's
     * var handle on load; {@code convert}, the static method of {@code convertOwner} that turns the
     * layout's carrier into the component's type, or none; and {@code owner}'s static
     * {@code put(segment, offset, value)} and {@code check(value, what)} (or none) on store.
     */
    private record Scalar(AccessMode read, Class<?> convertOwner, String convert, Class<?> owner, String put, String check) {}

    private static final Map<Desc<?>, Scalar> SCALARS = Map.ofEntries(
            Map.entry(Descs.BOOL, new Scalar(AccessMode.GET, null, null, BoolCell.class, "put", null)),
            memory(Descs.INT8, AccessMode.GET, "Byte", "Opaque"),
            memory(Descs.INT16, AccessMode.GET, "Short", "Opaque"),
            memory(Descs.INT32, AccessMode.GET, "Int", "Opaque"),
            memory(Descs.INT64, AccessMode.GET_OPAQUE, "Long", "Opaque"),
            unsigned(Descs.UINT8, Byte.class, "toUnsignedInt", Uint8Cell.class),
            unsigned(Descs.UINT16, Short.class, "toUnsignedInt", Uint16Cell.class),
            unsigned(Descs.UINT32, Integer.class, "toUnsignedLong", Uint32Cell.class),
            memory(Descs.FLOAT32, AccessMode.GET, "Float", "Opaque"),
            memory(Descs.FLOAT64, AccessMode.GET_OPAQUE, "Double", "Opaque"),
            memory(Descs.INT32_ATOMIC, AccessMode.GET_VOLATILE, "Int", "Volatile"),
            memory(Descs.INT64_ATOMIC, AccessMode.GET_VOLATILE, "Long", "Volatile"),
            Map.entry(Descs.BOOL_ATOMIC, new Scalar(AccessMode.GET_VOLATILE, BoolAtomicCell.class, "bool",
                    BoolAtomicCell.class, "put", null)));

    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    private static final ClassFile CLASS_FILE = ClassFile.of();

    private static final ClassDesc CD_ABSTRACT_CELL = desc(AbstractCell.class);
    private static final ClassDesc CD_STRUCT_CELL = desc(StructCell.class);
    private static final ClassDesc CD_CELL = desc(Cell.class);
    private static final ClassDesc CD_STRUCT_DESC = desc(StructDesc.class);
    private static final ClassDesc CD_RECORD = desc(Record.class);
    private static final ClassDesc CD_ACCESSORS = desc(StructAccessors.class);
    private static final ClassDesc CD_SEGMENT = desc(MemorySegment.class);
    private static final ClassDesc CD_IAE = desc(IllegalArgumentException.class);
    private static final MethodTypeDesc LOAD = MethodTypeDesc.of(CD_RECORD);
    private static final MethodTypeDesc TAKES_RECORD = MethodTypeDesc.of(CD_void, CD_Object);
    /** The parameters of the constructors of {@link StructCell} and of the generated class. */
    private static final MethodTypeDesc CONSTRUCTOR = MethodTypeDesc.of(CD_void, CD_STRUCT_DESC, CD_SEGMENT, CD_long);

    private StructAccessors() {}

    /** A scalar that is its layout's carrier, which {@link Memory} writes as it is. */
    private static Map.Entry<Desc<?>, Scalar> memory(Desc<?> desc, AccessMode read, String type, String mode) {
        return Map.entry(desc, new Scalar(read, null, null, Memory.class, "put" + type + mode, null));
    }

    /** An unsigned scalar: its signed carrier read plain and widened by {@code convert}, its range checked on store. */
    private static Map.Entry<Desc<?>, Scalar> unsigned(Desc<?> desc, Class<?> convertOwner, String convert, Class<?> cell) {
        return Map.entry(desc, new Scalar(AccessMode.GET, convertOwner, convert, cell, "put", "check"));
    }

    private static ClassDesc desc(Class<?> type) {
        return type.describeConstable().orElseThrow();
    }

    /** How the generated code handles one field. */
    private sealed interface Member {
        /** The component's type in the generated code: a scalar's primitive, else {@code Object}. */
        default Class<?> slot() {
            return Object.class;
        }

        /** Whether a check may refuse the component (a scalar without a check and a lock never do). */
        default boolean refusable() {
            return true;
        }
    }

    /**
     * @param field the var handle of the field in the struct's layout, a constant of the class data
     * @param carrier the type {@code field} reads
     */
    private record ScalarMember(Scalar scalar, Class<?> slot, long offset, String descriptor, ConstantDesc field, Class<?> carrier)
            implements Member {
        @Override
        public boolean refusable() {
            return scalar.check != null;
        }
    }

    private record StructMember() implements Member {}

    private record LockMember() implements Member {
        @Override
        public boolean refusable() {
            return false;
        }
    }

    private record CellMember() implements Member {}

    /**
     * Generates and defines the cell class of {@code struct}.
     *
     * @param constructor the record's canonical constructor, of its exact type
     * @param accessors the record's accessors, in component order, of their exact types
     * @return the class's constructor, of type {@code (StructDesc, MemorySegment, long)StructCell}
     */
    static MethodHandle generate(StructDesc<?> struct, MethodHandle constructor, List<MethodHandle> accessors) {
        Generator generator = new Generator(struct, constructor, accessors);
        byte[] bytes = CLASS_FILE.build(ClassDesc.of(StructAccessors.class.getPackageName(),
                "StructCell$" + struct.type().getSimpleName()), generator::build);
        try {
            MethodHandles.Lookup cell = LOOKUP.defineHiddenClassWithClassData(bytes, List.copyOf(generator.data), true);
            MethodType made = methodType(StructCell.class, StructDesc.class, MemorySegment.class, long.class);
            return cell.findConstructor(cell.lookupClass(), made.changeReturnType(void.class)).asType(made);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("could not define the generated cell class of " + struct + ": " + e, e);
        }
    }

    /** The members and constants of one generated class, and the code of its methods. */
    private static final class Generator {
        private static final int FINAL = ClassFile.ACC_FINAL;
        private static final int PUBLIC_FINAL = ClassFile.ACC_PUBLIC | FINAL;

        /** The class data: the constants that {@link #constant} hands out. */
        private final List<Object> data = new ArrayList<>();
        private final List<Member> members = new ArrayList<>();
        private final List<String> wheres = new ArrayList<>();
        private final List<ConstantDesc> accessors = new ArrayList<>();
        private final ConstantDesc constructor;
        private final MethodTypeDesc constructorType;

        Generator(StructDesc<?> struct, MethodHandle constructor, List<MethodHandle> accessors) {
            List<Class<?>> slots = new ArrayList<>();
            for (int i = 0; i < accessors.size(); i++) {
                Member member = member(struct, i);
                members.add(member);
                slots.add(member.slot());
                wheres.add(struct.type().getSimpleName() + "." + struct.names().get(i));
                this.accessors.add(constant(accessors.get(i).asType(methodType(member.slot(), Object.class)), CD_MethodHandle));
            }
            this.constructor = constant(constructor.asType(methodType(Record.class, slots)), CD_MethodHandle);
            constructorType = MethodTypeDesc.of(CD_RECORD, slots.stream().map(StructAccessors::desc).toArray(ClassDesc[]::new));
        }

        private Member member(StructDesc<?> struct, int i) {
            Desc<?> desc = struct.member(i);
            Scalar scalar = SCALARS.get(desc);
            if (scalar != null) {
                VarHandle field = struct.layout().varHandle(MemoryLayout.PathElement.groupElement(struct.names().get(i)));
                return new ScalarMember(scalar, desc.valueType(), struct.offset(i), desc.toString(),
                        constant(field, CD_VarHandle), field.varType());
            }
            if (desc instanceof StructDesc<?>) {
                return new StructMember();
            }
            if (desc == Descs.MUTEX || desc == Descs.RW_LOCK) {
                return new LockMember();
            }
            return new CellMember();
        }

        /** Adds {@code value} to the class data; the result loads it with {@code ldc}. */
        private ConstantDesc constant(Object value, ClassDesc type) {
            data.add(value);
            return DynamicConstantDesc.ofNamed(BSM_CLASS_DATA_AT, DEFAULT_NAME, type, data.size() - 1);
        }

        void build(ClassBuilder c) {
            c.withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC)
                    .withSuperclass(CD_STRUCT_CELL)
                    .withMethodBody(INIT_NAME, CONSTRUCTOR, 0, code -> code.aload(0).aload(1).aload(2).lload(3)
                            .invokespecial(CD_STRUCT_CELL, INIT_NAME, CONSTRUCTOR).return_())
                    .withMethodBody("load", LOAD, PUBLIC_FINAL, code -> new Body(code, false).load())
                    .withMethodBody("check", TAKES_RECORD, FINAL, code -> new Body(code, true).check().end())
                    .withMethodBody("storeRecord", TAKES_RECORD, FINAL, code -> new Body(code, true).check().write().end())
                    .withMethodBody("write", TAKES_RECORD, FINAL, code -> new Body(code, true).write().end());
        }

        /**
         * The code of one method: its locals hold the cell's segment, offset and member cells, and
         * (for the methods that take a record) every component, read once.
         */
        private final class Body {
            private final CodeBuilder code;
            private final int segment;
            private final int offset;
            private final int cells;
            private final int[] values;

            Body(CodeBuilder code, boolean takesRecord) {
                this.code = code;
                int cell = code.receiverSlot();
                segment = code.allocateLocal(TypeKind.REFERENCE);
                offset = code.allocateLocal(TypeKind.LONG);
                cells = code.allocateLocal(TypeKind.REFERENCE);
                code.aload(cell).getfield(CD_ABSTRACT_CELL, "segment", CD_SEGMENT).astore(segment)
                        .aload(cell).getfield(CD_ABSTRACT_CELL, "offset", CD_long).lstore(offset)
                        .aload(cell).getfield(CD_STRUCT_CELL, "cells", CD_CELL.arrayType()).astore(cells);
                values = new int[takesRecord ? members.size() : 0];
                for (int i = 0; i < values.length; i++) {
                    Class<?> slot = members.get(i).slot();
                    values[i] = code.allocateLocal(TypeKind.from(slot));
                    code.ldc(accessors.get(i)).aload(code.parameterSlot(0))
                            .invokevirtual(CD_MethodHandle, "invokeExact", MethodTypeDesc.of(desc(slot), CD_Object))
                            .storeLocal(TypeKind.from(slot), values[i]);
                }
            }

            void load() {
                if (members.stream().anyMatch(m -> m instanceof ScalarMember s && s.scalar.read == AccessMode.GET)) {
                    code.invokestatic(CD_VarHandle, "loadLoadFence", MethodTypeDesc.of(CD_void));
                }
                code.ldc(constructor);
                for (int i = 0; i < members.size(); i++) {
                    switch (members.get(i)) {
                        case ScalarMember s -> read(s);
                        case StructMember _ -> memberCell(code, i).checkcast(CD_STRUCT_CELL).invokevirtual(CD_STRUCT_CELL, "load", LOAD);
                        case LockMember _ -> memberCell(code, i);
                        case CellMember _ -> memberCell(code, i).invokeinterface(CD_CELL, "loadValue", MethodTypeDesc.of(CD_Object));
                    }
                }
                code.invokevirtual(CD_MethodHandle, "invokeExact", constructorType).areturn();
            }

            Body check() {
                if (members.stream().noneMatch(Member::refusable)) {
                    return this;
                }
                int where = code.allocateLocal(TypeKind.REFERENCE);
                code.aconst_null().astore(where);
                code.trying(block -> {
                    for (int i = 0; i < members.size(); i++) {
                        switch (members.get(i)) {
                            case ScalarMember s when !s.refusable() -> { }
                            case LockMember _ -> { } // never copied, so never checked, and may be null
                            case ScalarMember s -> where(block, i, where).loadLocal(TypeKind.from(s.slot), values[i])
                                    .ldc(s.descriptor).invokestatic(desc(s.scalar.owner), s.scalar.check,
                                            MethodTypeDesc.of(CD_void, desc(s.slot), CD_Object));
                            case StructMember _ -> memberCell(where(nonNull(block, i), i, where), i)
                                    .checkcast(CD_STRUCT_CELL).aload(values[i]).invokevirtual(CD_STRUCT_CELL, "check", TAKES_RECORD);
                            case CellMember _ -> memberCell(where(nonNull(block, i), i, where), i).aload(values[i])
                                    .invokeinterface(CD_CELL, "checkValue", MethodTypeDesc.of(CD_void, CD_Object));
                        }
                    }
                }, catches -> catches.catching(CD_IAE, handler -> handler.aload(where)
                        .invokestatic(CD_ACCESSORS, "refused", MethodTypeDesc.of(CD_IAE, CD_IAE, CD_String)).athrow()));
                return this;
            }

            Body write() {
                for (int i = 0; i < members.size(); i++) {
                    switch (members.get(i)) {
                        case ScalarMember s -> address(code, s.offset).loadLocal(TypeKind.from(s.slot), values[i])
                                .invokestatic(desc(s.scalar.owner), s.scalar.put, MethodTypeDesc.of(CD_void, CD_SEGMENT, CD_long, desc(s.slot)));
                        case StructMember _ -> memberCell(code, i).checkcast(CD_STRUCT_CELL).aload(values[i])
                                .invokevirtual(CD_STRUCT_CELL, "write", TAKES_RECORD);
                        case LockMember _ -> { } // a lock is never copied
                        case CellMember _ -> memberCell(code, i).aload(values[i])
                                .invokeinterface(CD_CELL, "storeValue", MethodTypeDesc.of(CD_void, CD_Object));
                    }
                }
                return this;
            }

            void end() {
                code.return_();
            }

            /** Pushes scalar {@code s} as its slot's type: its field's var handle in the scalar's mode, then its conversion. */
            private void read(ScalarMember s) {
                code.ldc(s.field).aload(segment).lload(offset).invokevirtual(CD_VarHandle, s.scalar.read.methodName(),
                        MethodTypeDesc.of(desc(s.carrier), CD_SEGMENT, CD_long));
                if (s.scalar.convert != null) {
                    code.invokestatic(desc(s.scalar.convertOwner), s.scalar.convert, MethodTypeDesc.of(desc(s.slot), desc(s.carrier)));
                }
            }

            /** Pushes the segment and the offset of a field {@code delta} bytes into the struct. */
            private CodeBuilder address(CodeBuilder c, long delta) {
                return c.aload(segment).lload(offset).loadConstant(delta).ladd();
            }

            private CodeBuilder nonNull(CodeBuilder c, int i) {
                return c.aload(values[i]).ldc(wheres.get(i))
                        .invokestatic(CD_ACCESSORS, "nonNull", MethodTypeDesc.of(CD_void, CD_Object, CD_String));
            }

            /** Names member {@code i} as the one whose check the handler may catch. */
            private CodeBuilder where(CodeBuilder c, int i, int where) {
                return c.ldc(wheres.get(i)).astore(where);
            }

            /** Pushes the cell of member {@code i}. */
            private CodeBuilder memberCell(CodeBuilder c, int i) {
                return c.aload(cells).loadConstant(i).aaload();
            }
        }
    }

    /** Throws the NullPointerException of a null component: called by the generated code. */
    static void nonNull(Object value, String where) {
        if (value == null) {
            throw new NullPointerException(where + " is null; a shared struct holds no nulls");
        }
    }

    /** The refusal of a component, named: called by the generated code. */
    static IllegalArgumentException refused(IllegalArgumentException e, String where) {
        return new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
}
