package dev.backoff.aspectj.tests.unwoven;

import dev.backoff.Backoff;

/**
 * A {@code @Backoff} bean whose class META-INF/aop.xml leaves out of the weaving.
 */
public class UnwovenService {

	@Backoff
	public String fetch() {
		return "ok";
	}

}
