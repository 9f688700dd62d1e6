package dev.backoff.benchmarks.startup;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * Generates and compiles the start-up benchmark's application: {@code beans} distinct classes
 * of {@value #METHODS_PER_BEAN} public methods each, identical in every flavour but for the
 * annotation on the methods, and a {@value #CALLS_CLASS} class that calls every method once
 * through the beans. Distinct classes, because both libraries resolve their operations per
 * method and target class: 1,000 beans of one class would cost them one class's work.
 */
public final class StartupSources {

	/** The public methods of every generated class. */
	public static final int METHODS_PER_BEAN = 5;

	/** The package of the generated classes. */
	public static final String PACKAGE = "dev.backoff.benchmarks.startup.generated";

	/** The simple name of the generated {@code ToIntFunction<BeanFactory>} that calls every method once. */
	public static final String CALLS_CLASS = "Calls";

	private StartupSources() {
	}

	/** What is on the generated methods; the classes are otherwise the same. */
	public enum Flavour {

		/** No annotation: no retry library has anything to do. */
		PLAIN(""),

		/** Backoff's {@code @Backoff}, no attributes: the default policy. */
		BACKOFF("@dev.backoff.Backoff"),

		/** Spring Framework 7's {@code @Retryable}, 3 attempts as Backoff's default policy. */
		FRAMEWORK("@org.springframework.resilience.annotation.Retryable(maxRetries = 2)");

		private final String annotation;

		Flavour(String annotation) {
			this.annotation = annotation;
		}

		/** @return the directory name of this flavour's classes */
		public String directoryName() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

	/**
	 * @param index the bean's index, from 0
	 * @return the name the bean is registered under
	 */
	public static String beanName(int index) {
		return String.format(Locale.ROOT, "bean%04d", index);
	}

	/**
	 * @param index the bean's index, from 0
	 * @return the fully qualified name of the bean's class
	 */
	public static String className(int index) {
		return PACKAGE + "." + simpleClassName(index);
	}

	private static String simpleClassName(int index) {
		return String.format(Locale.ROOT, "Bean%04d", index);
	}

	/**
	 * Generates one flavour's sources and compiles them with the JDK's compiler.
	 * @param flavour the annotation on the methods
	 * @param beans the number of bean classes
	 * @param classPath the class path to compile against (Backoff and Spring Framework on it)
	 * @param output the directory to write the classes to, created if missing
	 * @throws IllegalStateException when no compiler is available (a JRE) or compilation fails
	 */
	public static void compile(Flavour flavour, int beans, String classPath, Path output) {
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		if (compiler == null) {
			throw new IllegalStateException("No Java compiler in " + System.getProperty("java.home")
					+ ": the start-up benchmark generates its application at run time and needs a JDK, not a JRE");
		}
		List<JavaFileObject> sources = new ArrayList<>();
		for (int i = 0; i < beans; i++) {
			sources.add(source(simpleClassName(i), beanSource(flavour, i)));
		}
		sources.add(source(CALLS_CLASS, callsSource(beans)));
		try {
			Files.createDirectories(output);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		StringWriter diagnostics = new StringWriter();
		List<String> options = List.of("--release", "17", "-proc:none", "-classpath", classPath, "-d",
				output.toString());
		if (!compiler.getTask(diagnostics, null, null, options, null, sources).call()) {
			throw new IllegalStateException("Could not compile the " + flavour + " classes:\n" + diagnostics);
		}
	}

	static String beanSource(Flavour flavour, int index) {
		StringBuilder source = new StringBuilder();
		source.append("package ").append(PACKAGE).append(";\n\n");
		source.append("public class ").append(simpleClassName(index)).append(" {\n");
		for (int m = 0; m < METHODS_PER_BEAN; m++) {
			source.append("\n\t").append(flavour.annotation).append("\n");
			// Each returns 1, so that the sum of the results counts the calls that succeeded.
			source.append("\tpublic int m").append(m).append("() {\n\t\treturn 1;\n\t}\n");
		}
		return source.append("\n}\n").toString();
	}

	static String callsSource(int beans) {
		// Plain calls through the beans, as an application makes them: calling reflectively would
		// add the cost of reflecting on the proxies' classes, which no application pays.
		StringBuilder source = new StringBuilder();
		source.append("package ").append(PACKAGE).append(";\n\n");
		source.append("public final class ").append(CALLS_CLASS)
			.append(" implements java.util.function.ToIntFunction<org.springframework.beans.factory.BeanFactory> {\n\n");
		source.append("\t@Override\n\tpublic int applyAsInt(org.springframework.beans.factory.BeanFactory beans) {\n");
		source.append("\t\tint calls = 0;\n");
		for (int i = 0; i < beans; i++) {
			source.append("\t\tcalls += ").append(beanName(i)).append("(beans);\n");
		}
		source.append("\t\treturn calls;\n\t}\n");
		// One method per bean keeps every method far below the JVM's 64 KB limit.
		for (int i = 0; i < beans; i++) {
			String type = simpleClassName(i);
			source.append("\n\tprivate static int ").append(beanName(i))
				.append("(org.springframework.beans.factory.BeanFactory beans) {\n");
			source.append("\t\t").append(type).append(" bean = beans.getBean(\"").append(beanName(i)).append("\", ")
				.append(type).append(".class);\n");
			source.append("\t\treturn ");
			for (int m = 0; m < METHODS_PER_BEAN; m++) {
				source.append((m > 0) ? " + " : "").append("bean.m").append(m).append("()");
			}
			source.append(";\n\t}\n");
		}
		return source.append("\n}\n").toString();
	}

	private static JavaFileObject source(String simpleName, String code) {
		URI uri = URI.create("string:///" + PACKAGE.replace('.', '/') + "/" + simpleName + ".java");
		return new SimpleJavaFileObject(uri, JavaFileObject.Kind.SOURCE) {

			@Override
			public CharSequence getCharContent(boolean ignoreEncodingErrors) {
				return code;
			}

		};
	}

}
