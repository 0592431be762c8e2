package io.spinagent.compatibility;

import io.spinagent.compatibility.ClassPath.ClassShape;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Resolves every class, method and field that some classes reference against a class path, the way
 * the JVM links them, and lists what would fail there with {@code NoClassDefFoundError}, {@code
 * NoSuchMethodError} or {@code NoSuchFieldError} once the referencing code runs. It is how the
 * build proves that the plugin's product code and a host layer link on a Spinnaker line whose
 * libraries they were not compiled against (docs/compatibility.md).
 *
 * <p>Checked: supertypes; classes named in instructions (new, casts, instanceof, arrays, catch
 * blocks, class literals); fields and methods called, looked up in the owner and its supertypes;
 * the classes in those members' descriptors; method handles of lambdas and method references.
 * Annotations are not: the JVM ignores an annotation whose class is missing.
 */
public final class LinkageChecker {

  /**
   * One reference that would not link.
   *
   * @param from the class holding the reference, dotted
   * @param missing what is missing: a class, or a member as {@code owner.name descriptor}
   */
  public record Problem(String from, String missing) implements Comparable<Problem> {
    @Override
    public int compareTo(Problem other) {
      int byFrom = from.compareTo(other.from);
      return byFrom != 0 ? byFrom : missing.compareTo(other.missing);
    }

    @Override
    public String toString() {
      return from + " -> " + missing;
    }
  }

  private final ClassPath world;

  private LinkageChecker(ClassPath world) {
    this.world = world;
  }

  /**
   * The problems of the classes in {@code subjects} (jars or class directories) when they run on
   * {@code classPath} (which must hold the subjects too, and everything they bring along).
   */
  public static Set<Problem> check(List<Path> subjects, List<Path> classPath) {
    try (ClassPath world = new ClassPath(classPath)) {
      LinkageChecker checker = new LinkageChecker(world);
      Set<Problem> problems = new TreeSet<>();
      for (Path subject : subjects) {
        ClassPath.forEachClass(subject, (name, bytes) -> checker.checkClass(name, bytes, problems));
      }
      return problems;
    }
  }

  private void checkClass(String name, byte[] bytes, Set<Problem> problems) {
    String from = name.replace('/', '.');
    new ClassReader(bytes)
        .accept(
            new ClassVisitor(Opcodes.ASM9) {
              @Override
              public void visit(
                  int version,
                  int access,
                  String className,
                  String signature,
                  String superName,
                  String[] interfaces) {
                if (superName != null) {
                  requireClass(from, superName, problems);
                }
                for (String implemented : interfaces == null ? new String[0] : interfaces) {
                  requireClass(from, implemented, problems);
                }
              }

              @Override
              public MethodVisitor visitMethod(
                  int access,
                  String methodName,
                  String descriptor,
                  String signature,
                  String[] exceptions) {
                return new References(from, problems);
              }
            },
            ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
  }

  /** The references in one method's code. */
  private final class References extends MethodVisitor {
    private final String from;
    private final Set<Problem> problems;

    References(String from, Set<Problem> problems) {
      super(Opcodes.ASM9);
      this.from = from;
      this.problems = problems;
    }

    @Override
    public void visitTypeInsn(int opcode, String type) {
      requireType(from, Type.getObjectType(type), problems);
    }

    @Override
    public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
      requireField(from, owner, name, descriptor, problems);
    }

    @Override
    public void visitMethodInsn(
        int opcode, String owner, String name, String descriptor, boolean isInterface) {
      requireMethod(from, owner, name, descriptor, problems);
    }

    @Override
    public void visitInvokeDynamicInsn(
        String name, String descriptor, Handle bootstrap, Object... arguments) {
      requireHandle(from, bootstrap, problems);
      for (Object argument : arguments) {
        requireConstant(from, argument, problems);
      }
      for (Type type : Type.getArgumentTypes(descriptor)) {
        requireType(from, type, problems);
      }
    }

    @Override
    public void visitLdcInsn(Object value) {
      requireConstant(from, value, problems);
    }

    @Override
    public void visitMultiANewArrayInsn(String descriptor, int dimensions) {
      requireType(from, Type.getType(descriptor), problems);
    }

    @Override
    public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
      if (type != null) {
        requireClass(from, type, problems);
      }
    }
  }

  private void requireConstant(String from, Object constant, Set<Problem> problems) {
    if (constant instanceof Type type) {
      if (type.getSort() == Type.METHOD) {
        for (Type argument : type.getArgumentTypes()) {
          requireType(from, argument, problems);
        }
        requireType(from, type.getReturnType(), problems);
      } else {
        requireType(from, type, problems);
      }
    } else if (constant instanceof Handle handle) {
      requireHandle(from, handle, problems);
    }
  }

  private void requireHandle(String from, Handle handle, Set<Problem> problems) {
    switch (handle.getTag()) {
      case Opcodes.H_GETFIELD, Opcodes.H_GETSTATIC, Opcodes.H_PUTFIELD, Opcodes.H_PUTSTATIC ->
          requireField(from, handle.getOwner(), handle.getName(), handle.getDesc(), problems);
      default ->
          requireMethod(from, handle.getOwner(), handle.getName(), handle.getDesc(), problems);
    }
  }

  private void requireType(String from, Type type, Set<Problem> problems) {
    Type element = type.getSort() == Type.ARRAY ? type.getElementType() : type;
    if (element.getSort() == Type.OBJECT) {
      requireClass(from, element.getInternalName(), problems);
    }
  }

  private boolean requireClass(String from, String internalName, Set<Problem> problems) {
    if (internalName.startsWith("[")) {
      requireType(from, Type.getType(internalName), problems);
      return true;
    }
    if (world.find(internalName).isPresent()) {
      return true;
    }
    problems.add(new Problem(from, "class " + internalName.replace('/', '.')));
    return false;
  }

  private void requireField(
      String from, String owner, String name, String descriptor, Set<Problem> problems) {
    requireType(from, Type.getType(descriptor), problems);
    if (owner.startsWith("[") || !requireClass(from, owner, problems)) {
      return;
    }
    if (findMember(owner, name + ":" + descriptor, true).isEmpty()) {
      problems.add(
          new Problem(from, "field " + owner.replace('/', '.') + "." + name + " " + descriptor));
    }
  }

  private void requireMethod(
      String from, String owner, String name, String descriptor, Set<Problem> problems) {
    for (Type argument : Type.getArgumentTypes(descriptor)) {
      requireType(from, argument, problems);
    }
    requireType(from, Type.getReturnType(descriptor), problems);
    if (owner.startsWith("[") || !requireClass(from, owner, problems)) {
      return; // arrays have Object's methods and clone()
    }
    if (isSignaturePolymorphic(owner, name)) {
      return;
    }
    if (findMember(owner, name + descriptor, false).isEmpty()) {
      problems.add(
          new Problem(from, "method " + owner.replace('/', '.') + "." + name + " " + descriptor));
    }
  }

  /** MethodHandle and VarHandle methods that accept any descriptor. */
  private static boolean isSignaturePolymorphic(String owner, String name) {
    return owner.equals("java/lang/invoke/MethodHandle")
        || owner.equals("java/lang/invoke/VarHandle");
  }

  /** The class declaring the member, searched in the owner and all its supertypes. */
  private Optional<String> findMember(String owner, String member, boolean field) {
    Deque<String> queue = new ArrayDeque<>(List.of(owner));
    Set<String> seen = new HashSet<>();
    while (!queue.isEmpty()) {
      String current = queue.pop();
      if (!seen.add(current)) {
        continue;
      }
      Optional<ClassShape> shape = world.find(current);
      if (shape.isEmpty()) {
        continue;
      }
      ClassShape type = shape.get();
      if (field ? type.fields().contains(member) : type.methods().contains(member)) {
        return Optional.of(current);
      }
      if (type.superName() != null) {
        queue.add(type.superName());
      }
      queue.addAll(type.interfaces());
      if (type.isInterface()) {
        queue.add("java/lang/Object");
      }
    }
    return Optional.empty();
  }
}
