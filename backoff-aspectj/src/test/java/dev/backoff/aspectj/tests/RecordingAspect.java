package dev.backoff.aspectj.tests;

import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.aspectj.BackoffAspect;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;

/**
 * Another woven aspect on the same methods as {@code BackoffAspect}, standing for a woven
 * transaction: counts how often it is entered, which is once per call, since
 * {@code BackoffAspect} has the lowest precedence.
 */
@Aspect
public class RecordingAspect {

	static final AtomicInteger entries = new AtomicInteger();

	@Around("execution(@dev.backoff.aspectj.tests.Recorded * *(..))")
	public Object record(ProceedingJoinPoint joinPoint) throws Throwable {
		entries.incrementAndGet();
		return joinPoint.proceed();
	}

}
