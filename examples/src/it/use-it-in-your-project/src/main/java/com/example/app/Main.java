package com.example.app;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo1;
import dev.moroutine.Pool;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;

public final class Main {

    static final Mo1<Integer, Integer> collatzSteps = mo(n -> {
        int steps = 0;
        for (long x = n; x != 1; x = x % 2 == 0 ? x / 2 : 3 * x + 1) {
            steps++;
        }
        return steps;
    });

    public static void main(String[] args) {
        try (Pool pool = workers(2)) {
            List<Integer> steps = pool.runAll(IntStream.rangeClosed(1, 30).mapToObj(n -> collatzSteps.call(n)).toList());
            int longest = steps.indexOf(Collections.max(steps)) + 1;
            System.out.println("longest Collatz run from 1 to 30: " + longest + ", " + steps.get(longest - 1) + " steps");
        }
    }
}
