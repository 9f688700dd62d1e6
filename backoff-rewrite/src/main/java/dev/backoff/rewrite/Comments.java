package dev.backoff.rewrite;

import java.util.ArrayList;
import java.util.List;

import org.openrewrite.java.tree.Comment;
import org.openrewrite.java.tree.Space;
import org.openrewrite.java.tree.TextComment;
import org.openrewrite.marker.Markers;

/** The line comments the recipes leave above what they changed or left. */
final class Comments {

	static final String TAG = "Backoff migration";

	private Comments() {
	}

	/** @return whether the prefix already has a comment of ours */
	static boolean has(Space prefix) {
		return prefix.getComments().stream()
			.anyMatch((comment) -> comment instanceof TextComment text && text.getText().contains(TAG));
	}

	/**
	 * @param prefix the prefix of a declaration
	 * @param text the comment's text, after {@code //}
	 * @return the prefix with the comment last, just above the declaration, at its indentation
	 */
	static Space add(Space prefix, String text) {
		List<Comment> comments = new ArrayList<>(prefix.getComments());
		String suffix;
		if (comments.isEmpty()) {
			String whitespace = prefix.getWhitespace();
			int newline = whitespace.lastIndexOf('\n');
			suffix = (newline < 0) ? "\n" + whitespace : whitespace.substring(newline);
		}
		else {
			suffix = comments.get(comments.size() - 1).getSuffix();
		}
		comments.add(new TextComment(false, text, suffix, Markers.EMPTY));
		return prefix.withComments(comments);
	}

}
