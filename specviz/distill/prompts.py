"""The distillation prompt set: templates x topics, seeded, with a held-out set whose topics never enter training.

    train, held_out = prompt_sets(n_train=3000, n_held_out=64, seed=0)

Five families (explain, create, list, code, rewrite/math) each pair their own templates with their own topics.
The held-out prompts use topics that no training prompt uses, so held-out acceptance measures what a draft
learned about the target, not what it memorised about a topic.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

GENERAL_TEMPLATES = [
    "Explain {t} in simple terms.",
    "Explain {t} to a ten-year-old.",
    "What is {t}, and why does it matter?",
    "Give me three interesting facts about {t}.",
    "Write a short paragraph about {t}.",
    "What are the main advantages and disadvantages of {t}?",
    "Summarise the history of {t} in a few sentences.",
    "Write a short poem about {t}.",
    "Write a haiku about {t}.",
    "Describe {t} to someone who has never heard of it.",
    "List five questions a student might ask about {t}, with short answers.",
    "What are common misconceptions about {t}?",
    "Write a tweet announcing a new discovery about {t}.",
    "How would you teach {t} in a ten-minute lesson?",
    "Give a step-by-step introduction to {t}.",
    "Write a short story for children that involves {t}.",
    "Compare {t} with something from everyday life.",
    "Why do people find {t} interesting?",
    "What should a beginner know about {t}?",
    "Write a product description for a book about {t}.",
    "Write a dialogue between a teacher and a student about {t}.",
    "What are the most important words to know when talking about {t}?",
    "Write an encyclopedia-style introduction to {t}.",
    "Give me a fun quiz with three questions about {t}.",
    "How has {t} changed over the last hundred years?",
    "Write a limerick about {t}.",
    "What jobs are connected to {t}?",
    "Explain {t} using an analogy.",
    "Write a short blog post titled 'Why I love {t}'.",
    "What would the world be like without {t}?",
    "Give three tips for learning more about {t}.",
    "Describe {t} in exactly three sentences.",
]

GENERAL_TOPICS = [
    "photosynthesis", "volcanoes", "the water cycle", "black holes", "the moon", "honey bees", "rainbows", "earthquakes",
    "the human heart", "vaccines", "electricity", "magnets", "gravity", "the internet", "recycling", "climate change",
    "the Roman Empire", "ancient Egypt", "the printing press", "the Olympic Games", "chess", "jazz music",
    "the piano", "coffee", "bread baking", "tea", "chocolate", "gardening", "composting", "bicycles", "trains",
    "airplanes", "submarines", "lighthouses", "bridges", "skyscrapers", "the Great Wall of China", "deserts",
    "rainforests", "coral reefs", "whales", "octopuses", "penguins", "elephants", "owls", "dinosaurs", "fossils",
    "the solar system", "Mars", "comets", "telescopes", "microscopes", "bacteria", "DNA", "sleep", "dreams",
    "memory", "exercise", "nutrition", "meditation", "friendship", "kindness", "time management", "public speaking",
    "saving money", "budgeting", "learning a language", "reading books", "libraries", "museums", "photography",
    "painting", "origami", "knitting", "camping", "hiking", "mountains", "rivers", "oceans", "islands", "snow",
    "thunderstorms", "wind power", "solar panels", "batteries", "electric cars", "robots", "artificial intelligence",
    "video games", "board games", "football", "basketball", "swimming", "running", "yoga", "cats", "dogs",
    "horses", "birds", "butterflies", "ants", "spiders", "trees", "flowers", "mushrooms", "salt", "glass",
    "paper", "clocks", "maps", "compasses", "the alphabet", "numbers", "money", "markets", "cities", "villages",
]

CODE_TEMPLATES = [
    "Write a Python function that {t}.",
    "Write a Python function that {t}, with a docstring.",
    "Show a short Python example that {t}, and explain it.",
    "Write a JavaScript function that {t}.",
    "How would you write code that {t}? Use Python.",
    "Write a Python function that {t} and add two test cases.",
]

CODE_TOPICS = [
    "returns the largest number in a list", "reverses a string", "checks whether a number is prime",
    "counts the vowels in a string", "returns the factorial of n", "computes the average of a list",
    "removes duplicates from a list", "checks whether a word is a palindrome", "converts Celsius to Fahrenheit",
    "returns the n-th Fibonacci number", "sorts a list of names alphabetically", "counts words in a sentence",
    "merges two dictionaries", "finds the second smallest number in a list", "flattens a nested list",
    "returns the even numbers from a list", "capitalises each word in a sentence", "sums the digits of a number",
    "checks whether two strings are anagrams", "reads a text file and counts its lines",
    "returns the greatest common divisor of two numbers", "converts a list of strings to integers",
    "finds the most common element in a list", "checks whether a year is a leap year",
    "returns the length of the longest word", "computes the area of a circle", "generates a multiplication table",
    "validates an email address with a simple rule", "returns the square of each number in a list",
    "counts how often each letter appears in a string", "splits a list into chunks of size n",
    "returns the minimum and maximum of a list", "converts minutes to hours and minutes",
]

REWRITE_TEMPLATES = [
    "Rewrite this sentence in a more formal tone: \"{t}\"",
    "Rewrite this sentence for a child: \"{t}\"",
    "Fix the grammar in this sentence: \"{t}\"",
    "Translate this sentence into French: \"{t}\"",
    "Make this sentence shorter: \"{t}\"",
    "Turn this sentence into a question: \"{t}\"",
]

REWRITE_TOPICS = [
    "the meeting is moved to friday because the room was booked", "we was going to the park yesterday",
    "I think that the new policy is very good for all the people", "the cat sat on the mat and looked at the birds",
    "please send me the report before the end of the day", "the weather is nice today so we can go outside",
    "our team finished the project two weeks early", "she don't like coffee in the morning",
    "the train was late and everybody was angry", "can you help me with my homework tonight",
    "the shop closes at six on weekdays", "he have three brothers and one sister",
    "the museum is free on the first sunday of the month", "i forgot my keys at home again",
    "the new phone has a bigger screen and a better camera", "we need more volunteers for the festival",
    "the children played in the garden all afternoon", "my computer is very slow since the update",
    "the restaurant serves fresh fish every day", "they plans to visit london next summer",
    "the library will be closed for repairs", "thank you for your quick reply",
    "the price of bread went up again", "our neighbours have a very noisy dog",
]

MATH_TEMPLATES = [
    "Solve this step by step: {t}",
    "{t} Explain your reasoning.",
    "A student asks: {t} Give the answer and a short explanation.",
]

MATH_TOPICS = [
    "What is 17 times 23?", "What is 15% of 240?", "A train travels 120 km in 2 hours. What is its average speed?",
    "If a pizza is cut into 8 slices and Tom eats 3, what fraction is left?", "What is the square root of 144?",
    "Sara has 12 apples and gives away a third. How many are left?", "What is 2 to the power of 10?",
    "A shirt costs $40 and is on sale for 25% off. What is the sale price?", "What is the perimeter of a square with side 7?",
    "How many minutes are there in 3.5 hours?", "What is the sum of the angles in a triangle?",
    "If x + 7 = 19, what is x?", "What is the average of 4, 8, 15 and 21?", "Convert 0.375 to a fraction.",
    "A rectangle is 6 m by 9 m. What is its area?", "What is 1001 minus 387?",
    "If 5 pencils cost $2, how much do 20 pencils cost?", "What is the next prime number after 31?",
    "How many seconds are in one day?", "What is 3/4 plus 1/8?",
]

FAMILIES = {
    "general": (GENERAL_TEMPLATES, GENERAL_TOPICS, 0.62),
    "code": (CODE_TEMPLATES, CODE_TOPICS, 0.14),
    "rewrite": (REWRITE_TEMPLATES, REWRITE_TOPICS, 0.12),
    "math": (MATH_TEMPLATES, MATH_TOPICS, 0.12),
}


@dataclass(frozen=True)
class Prompt:
    id: str
    family: str
    text: str
    topic: str = ""


def split_topics(topics: list[str], seed: int, held_out_share: float = 0.15) -> tuple[list[str], list[str]]:
    """Shuffle the topics with `seed` and set aside a share that only the held-out prompts use."""
    shuffled = list(topics)
    random.Random(seed).shuffle(shuffled)
    n_held = max(2, round(len(shuffled) * held_out_share))
    return shuffled[n_held:], shuffled[:n_held]


def prompt_sets(n_train: int = 3000, n_held_out: int = 64, seed: int = 0) -> tuple[list[Prompt], list[Prompt]]:
    """`n_train` training prompts and `n_held_out` held-out prompts, disjoint in topic, each drawn without
    repetition from its family's templates x topics in proportion to the family's share."""
    rng = random.Random(seed)
    train, held = [], []
    for family, (templates, topics, share) in FAMILIES.items():
        train_topics, held_topics = split_topics(topics, seed)
        train.append(_draw(family, templates, train_topics, rng, "train"))
        held += _draw(family, templates, held_topics, rng, "held")[: max(1, round(n_held_out * share))]
    # each family gives its share; a family with fewer combinations than its share leaves the rest to the others
    quotas = [round(n_train * share) for _, _, share in FAMILIES.values()]
    chosen = [combos[:quota] for combos, quota in zip(train, quotas)]
    spare = [p for combos, quota in zip(train, quotas) for p in combos[quota:]]
    rng.shuffle(spare)
    picked = [p for part in chosen for p in part]
    picked += spare[: max(0, n_train - len(picked))]
    if len(picked) < n_train:
        raise ValueError(f"The templates and topics make only {len(picked)} training prompts (asked for {n_train}).")
    rng.shuffle(picked)
    return picked[:n_train], held[:n_held_out]


def _draw(family, templates, topics, rng, split) -> list[Prompt]:
    combos = [(tpl, topic) for tpl in templates for topic in topics]
    rng.shuffle(combos)
    return [Prompt(f"{split}-{family}-{i:04d}", family, tpl.format(t=topic), topic)
            for i, (tpl, topic) in enumerate(combos)]


def held_out_suite(held: list[Prompt], seed: int = 0) -> dict:
    """The held-out prompts as a bench prompt suite (assets/prompts/held-out.yaml), families interleaved so that
    `--prompts-per-suite 8` takes a mix."""
    mixed = list(held)
    random.Random(seed).shuffle(mixed)
    return {"name": "held-out", "title": "Held-out (drafts)",
            "description": "Prompts whose topics the trained drafts never saw (python -m specviz.distill).",
            "prompts": [{"id": p.id, "text": p.text} for p in mixed]}
