package dev.quiver.planner.optimizer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/** The concrete main classes of a package that implement some interface: rules nobody may forget. */
public final class RuleClasses {
  private RuleClasses() {}

  /** The names of the concrete top-level classes in {@code anchor}'s package (main classes) implementing {@code type}. */
  public static Set<String> implementing(Class<?> anchor, Class<?> type) {
    try {
      Path root = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path dir = root.resolve(anchor.getPackageName().replace('.', '/'));
      Set<String> out = new TreeSet<>();
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.toList()) {
          String file = f.getFileName().toString();
          if (!file.endsWith(".class") || file.contains("$")) continue;
          Class<?> c = Class.forName(anchor.getPackageName() + "." + file.substring(0, file.length() - ".class".length()));
          if (type.isAssignableFrom(c) && !c.isInterface() && !Modifier.isAbstract(c.getModifiers())) out.add(c.getSimpleName());
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException | ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }
}
