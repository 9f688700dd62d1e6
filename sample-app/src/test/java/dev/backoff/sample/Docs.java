package dev.backoff.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documentation as a test reads it: the outputs a page shows, to be compared with what the
 * sample really answers, so that the docs cannot drift from the code.
 */
final class Docs {

	private Docs() {
	}

	/**
	 * @param page a path from the sample-app module, e.g. {@code ../docs/endpoint.md}
	 * @return the page's text
	 */
	static String read(String page) {
		try {
			return Files.readString(Path.of(page), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * @param page a path from the sample-app module
	 * @param language the fenced block's language, e.g. {@code json}
	 * @param containing a text that tells the block from the page's others
	 * @return the one block of that language that contains the text
	 */
	static String block(String page, String language, String containing) {
		List<String> found = new ArrayList<>();
		StringBuilder block = null;
		for (String line : read(page).split("\n", -1)) {
			if (block == null && line.equals("```" + language)) {
				block = new StringBuilder();
			}
			else if (block != null && line.equals("```")) {
				if (block.indexOf(containing) >= 0) {
					found.add(block.toString());
				}
				block = null;
			}
			else if (block != null) {
				block.append(line).append('\n');
			}
		}
		assertThat(found).as("```%s blocks of %s containing %s", language, page, containing).hasSize(1);
		return found.get(0);
	}

}
