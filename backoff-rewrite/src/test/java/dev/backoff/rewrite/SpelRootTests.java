package dev.backoff.rewrite;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Spring Retry's exceptionExpression, whose root is the failure, made explicit on #exception. */
class SpelRootTests {

	@Test
	void propertiesAndMethodsOfTheRoot() {
		assertThat(SpelRoot.explicit("message.contains('x')")).isEqualTo("#exception.message.contains('x')");
		assertThat(SpelRoot.explicit("cause != null and cause.message == 'busy'"))
			.isEqualTo("#exception.cause != null and #exception.cause.message == 'busy'");
		assertThat(SpelRoot.explicit("getMessage().length() > 3")).isEqualTo("#exception.getMessage().length() > 3");
	}

	@Test
	void rootAndThisAreTheException() {
		assertThat(SpelRoot.explicit("@retryDecider.shouldRetry(#root)")).isEqualTo("@retryDecider.shouldRetry(#exception)");
		assertThat(SpelRoot.explicit("#this.message != null")).isEqualTo("#exception.message != null");
	}

	@Test
	void templatesAreUnwrapped() {
		// A #{...} exceptionExpression is evaluated per failure with the same root.
		assertThat(SpelRoot.explicit("#{message.contains('x')}")).isEqualTo("#exception.message.contains('x')");
	}

	@Test
	void stringsTypesConstructorsAndWordsAreLeft() {
		assertThat(SpelRoot.explicit("message matches 'it''s busy' or not retryable"))
			.isEqualTo("#exception.message matches 'it''s busy' or not #exception.retryable");
		assertThat(SpelRoot.explicit("T(java.time.Instant).now() != null and statusCode == T(org.example.Codes).BUSY"))
			.isEqualTo("T(java.time.Instant).now() != null and #exception.statusCode == T(org.example.Codes).BUSY");
		assertThat(SpelRoot.explicit("new java.util.ArrayList().isEmpty() and code > 10"))
			.isEqualTo("new java.util.ArrayList().isEmpty() and #exception.code > 10");
		assertThat(SpelRoot.explicit("message == '${busy.text}'")).isEqualTo("#exception.message == '${busy.text}'");
	}

	@Test
	void selectionsAndProjectionsKeepTheirElementScope() {
		// Inside .?[…], .![…], .^[…] and .$[…] a name and #this are the element's; #root stays the root.
		assertThat(SpelRoot.explicit("suppressed.?[message == null].length > 0 and message != null"))
			.isEqualTo("#exception.suppressed.?[message == null].length > 0 and #exception.message != null");
		assertThat(SpelRoot.explicit("stackTrace.![className].contains('com.x.Client')"))
			.isEqualTo("#exception.stackTrace.![className].contains('com.x.Client')");
		assertThat(SpelRoot.explicit("suppressed.^[#this instanceof T(java.io.IOException) and #root.message != null] != null"))
			.isEqualTo("#exception.suppressed.^[#this instanceof T(java.io.IOException) and #exception.message != null] != null");
		assertThat(SpelRoot.explicit("suppressed[code].message != null"))
			.isEqualTo("#exception.suppressed[#exception.code].message != null");
	}

}
