"""The distillation prompt set: templates x topics, seeded, with a held-out set on topics no training prompt is about.

    train, held_out = prompt_sets(n_train=3000, n_held_out=64, seed=0)

Four families (`FAMILIES`: general, whose templates ask to explain, create and list; code; rewrite; math) each
pair their own templates with their own topics, drawn in the family's share of the prompts.
The held-out prompts use topics that no training prompt is about (a training prompt may still name one in passing:
a math problem's train, or an earlier answer that a follow-up or rewrite quotes unfiltered), so held-out acceptance
measures what a draft learned about the target, not what it memorised about a topic.
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
    turns: tuple[str, ...] = ()  # earlier turns of a conversation (user, assistant, ...); `text` is the last user turn


def split_topics(topics: list[str], seed: int, held_out_share: float = 0.15) -> tuple[list[str], list[str]]:
    """Shuffle the topics with `seed` and set aside a share that only the held-out prompts use."""
    shuffled = list(topics)
    random.Random(seed).shuffle(shuffled)
    n_held = max(2, round(len(shuffled) * held_out_share))
    return shuffled[n_held:], shuffled[:n_held]


def prompt_sets(n_train: int = 3000, n_held_out: int = 64, seed: int = 0) -> tuple[list[Prompt], list[Prompt]]:
    """`n_train` training prompts and `n_held_out` held-out prompts, disjoint in topic, each drawn without
    repetition from its family's templates x topics in proportion to the family's share (a family with fewer
    combinations than its share leaves the rest to the others)."""
    rng = random.Random(seed)
    train, held, held_spare = [], [], []
    for family, (templates, topics, share) in FAMILIES.items():
        train_topics, held_topics = split_topics(topics, seed)
        train.append(_draw(family, templates, train_topics, rng, "train"))
        drawn = _draw(family, templates, held_topics, rng, "held")
        quota = max(1, round(n_held_out * share))
        held += drawn[:quota]
        held_spare += drawn[quota:]
    # as for training: a family with fewer held-out combinations than its share leaves the rest to the others
    held += held_spare[: max(0, n_held_out - len(held))]
    # each family gives its share; a family with fewer combinations than its share leaves the rest to the others
    quotas = [round(n_train * share) for _, _, share in FAMILIES.values()]
    chosen = [combos[:quota] for combos, quota in zip(train, quotas)]
    spare = [p for combos, quota in zip(train, quotas) for p in combos[quota:]]
    rng.shuffle(spare)
    picked = [p for part in chosen for p in part]
    picked += spare[: max(0, n_train - len(picked))]
    if len(picked) < n_train:
        raise ValueError(f"The templates and topics make only {len(picked)} training prompts (asked for {n_train}).")
    if len(held) < n_held_out:  # each family gives at most its held-out topics x its templates
        raise ValueError(f"The held-out topics make only {len(held)} held-out prompts (asked for {n_held_out}).")
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
            "description": "Prompts on topics no prompt the trained drafts learned from is about (python -m "
                           "specviz.distill).",
            "prompts": [{"id": p.id, "text": p.text} for p in mixed]}


# ---- the wider prompt set (issue 30): more topics, questions the target writes, follow-ups, rewrites, drills -------
#
# None of these topics is held out: they only widen training. No training prompt is about a held-out topic above:
# `prompt_sets` draws its training prompts from other topics (a few still name one in passing, such as a math
# problem's train), and `held_out_pattern` drops any extra-topic, question-list or drill prompt, and any question
# the target writes, that names one; the follow-up and rewrite stages quote the target's earlier answers unfiltered,
# which may mention one.

EXTRA_TOPICS = [
    "sunflowers", "tulips", "cactus plants", "bamboo", "oak trees", "moss", "seaweed", "wheat", "rice farming",
    "potatoes", "tomatoes", "apples", "bananas", "oranges", "strawberries", "honey", "cheese", "yogurt", "pizza",
    "pasta", "soup", "sandwiches", "breakfast", "vegetarian cooking", "spices", "baking cookies", "ice cream",
    "popcorn", "pancakes", "food waste", "farmers", "fishing", "beekeeping", "chickens", "cows", "sheep", "goats",
    "rabbits", "hamsters", "parrots", "eagles", "pigeons", "flamingos", "ostriches", "crows", "frogs", "turtles",
    "snakes", "lizards", "crocodiles", "sharks", "dolphins", "jellyfish", "starfish", "crabs", "salmon", "seals",
    "polar bears", "pandas", "koalas", "kangaroos", "giraffes", "zebras", "lions", "tigers", "wolves", "foxes",
    "bats", "squirrels", "hedgehogs", "beetles", "mosquitoes", "ladybugs", "dragonflies", "worms", "snails",
    "animal migration", "hibernation", "camouflage in animals", "food chains", "ecosystems", "biodiversity",
    "endangered species", "national parks", "wetlands", "glaciers", "icebergs", "caves", "canyons", "waterfalls",
    "lakes", "beaches", "tides", "waves", "hurricanes", "tornadoes", "floods", "droughts", "fog", "clouds",
    "lightning", "hail", "the seasons", "weather forecasts", "air pollution", "plastic pollution", "clean water",
    "soil", "rocks and minerals", "crystals", "diamonds", "gold", "iron", "copper", "plastic", "rubber", "wool",
    "cotton", "silk", "concrete", "steel", "wood", "the sun", "stars", "galaxies", "the Milky Way", "asteroids",
    "meteors", "eclipses", "satellites", "space stations", "astronauts", "rockets", "the Apollo missions",
    "Jupiter", "Saturn's rings", "Venus", "the speed of light", "sound waves", "echoes", "temperature", "heat",
    "friction", "levers", "pulleys", "wheels", "engines", "steam engines", "windmills", "dams", "nuclear energy",
    "fossil fuels", "energy saving", "atoms", "molecules", "chemical reactions", "acids and bases", "oxygen",
    "carbon dioxide", "hydrogen", "evaporation", "freezing", "boiling", "density", "floating and sinking",
    "the periodic table", "cells", "viruses", "the immune system", "the brain", "the lungs", "the skeleton",
    "muscles", "teeth", "the eyes", "hearing", "the sense of smell", "taste", "skin", "blood", "genes", "evolution",
    "first aid", "washing hands", "healthy eating", "drinking water", "stress", "happiness", "laughter", "habits",
    "motivation", "creativity", "curiosity", "patience", "honesty", "teamwork", "leadership", "empathy",
    "making friends", "families", "grandparents", "siblings", "pets", "birthdays", "holidays", "weddings",
    "festivals", "traditions", "manners", "apologising", "giving feedback", "listening", "negotiation",
    "job interviews", "writing a CV", "starting a business", "marketing", "advertising", "customer service",
    "banks", "credit cards", "interest rates", "taxes", "inflation", "the stock market", "insurance",
    "renting a flat", "moving house", "cleaning", "laundry", "cooking on a budget", "grocery shopping",
    "online shopping", "passwords", "online safety", "email", "social media", "smartphones", "computers",
    "keyboards", "search engines", "websites", "apps", "cloud storage", "spreadsheets", "databases", "programming",
    "algorithms", "bugs in software", "open source software", "cybersecurity", "encryption", "3D printing",
    "virtual reality", "drones", "self-driving cars", "smart homes", "wireless networks", "GPS", "radio",
    "television", "cinema", "cartoons", "comics", "novels", "poetry", "fairy tales", "myths", "legends",
    "theatre", "opera", "ballet", "dancing", "singing", "guitars", "drums", "violins", "orchestras", "rock music",
    "hip hop", "classical music", "sculpture", "architecture", "castles", "pyramids", "temples", "ancient Greece",
    "the Vikings", "the Middle Ages", "knights", "pirates", "explorers", "the Silk Road", "the Renaissance",
    "the Industrial Revolution", "the invention of the telephone", "the first cars", "the history of flight",
    "the history of writing", "calendars", "languages", "grammar", "spelling", "punctuation", "dictionaries",
    "storytelling", "note taking", "studying for exams", "homework", "schools", "universities", "teachers",
    "scientists", "doctors", "nurses", "firefighters", "police officers", "pilots", "engineers", "architects",
    "chefs", "artists", "writers", "journalists", "lawyers", "judges", "elections", "democracy", "laws",
    "human rights", "the United Nations", "countries", "capital cities", "flags", "borders", "population growth",
    "maps of the world", "time zones", "Antarctica", "the Arctic", "the Amazon river", "the Sahara", "the Alps",
    "the Himalayas", "Japan", "Brazil", "Canada", "Australia", "Egypt today", "India", "Mexico", "Kenya",
    "tennis", "golf", "cycling races", "skateboarding", "surfing", "skiing", "climbing", "martial arts",
    "table tennis", "cricket", "baseball", "volleyball", "marathons", "the World Cup", "sportsmanship",
    "puzzles", "crosswords", "card games", "magic tricks", "jokes", "riddles", "toys", "Lego", "kites",
    "picnics", "gardening in small spaces", "houseplants", "birdwatching", "stargazing", "road trips",
    "travelling by train", "airports", "hotels", "packing a suitcase", "learning to drive", "traffic lights",
]

EXTRA_CODE_TOPICS = [
    "counts the words in a text file", "returns the longest common prefix of a list of strings",
    "rotates a list by k positions", "checks whether a list is sorted", "converts a number to binary",
    "converts a binary string to a number", "returns the median of a list", "removes the vowels from a string",
    "finds all prime numbers below n", "computes compound interest", "checks whether brackets are balanced",
    "counts the lines that contain a word", "returns the index of an item or -1", "swaps the keys and values of a dictionary",
    "computes the mean of each column of a table", "returns the running total of a list", "finds duplicate words in a sentence",
    "formats a number with thousands separators", "generates a random password", "shuffles a list",
    "computes the distance between two points", "checks whether a number is a perfect square",
    "returns the digits of a number as a list", "converts kilometres to miles", "returns the first n square numbers",
    "groups words by their first letter", "counts the uppercase letters in a string", "returns the intersection of two lists",
    "reads a CSV file and prints each row", "implements binary search", "implements bubble sort",
    "computes the power of a number without using **", "replaces every space with an underscore",
    "returns the number of days between two dates", "checks whether a string contains only digits",
    "builds a dictionary of word lengths", "returns the last n items of a list", "computes the product of a list",
    "truncates a string to n characters with an ellipsis", "converts a string to title case",
]

EXTRA_CODE_TEMPLATES = [
    "Write a Python function that {t}.",
    "Explain, step by step, how to write a Python function that {t}.",
    "Write a short Python program that {t} and prints the result.",
    "What is a simple way in Python to write code that {t}?",
]

QUESTION_LIST_TEMPLATES = [
    "Give me a list of five different questions people ask about {t}.",
    "List five questions a beginner might ask about {t}.",
    "Write five questions a child might ask about {t}.",
    "What are five common questions about {t}? List them.",
]

FOLLOW_UPS = [
    "Can you give me an example?", "Can you explain that more simply?", "Why is that?", "Tell me more.",
    "Can you summarise that in one sentence?", "What else should I know?", "Can you make it shorter?",
    "Is there a fun fact about this?", "How would you explain that to a child?", "What is the most important part?",
    "Can you put that in a list?", "Thanks! Can you give me one more tip?",
]

REWRITE_OWN_TEMPLATES = [
    "Summarise this text in two sentences:\n\n{t}",
    "List the key points of this text:\n\n{t}",
    "Rewrite this text for a ten-year-old:\n\n{t}",
    "Give this text a short title:\n\n{t}",
    "Rewrite this text in a more formal tone:\n\n{t}",
    "What is the main idea of this text?\n\n{t}",
]

# the everyday questions the drafter is measured on (assets/prompts/everyday.yaml): never trained on verbatim
EVERYDAY_QUESTIONS = [
    "Why do cats purr?", "How do vaccines work?", "Write a haiku about rain.", "What is the capital of France?",
    "Give me three tips for a job interview.", "Why do leaves change colour in autumn?",
    "Explain what a computer virus is.", "How can I sleep better?",
]

NAMES = ["Ana", "Ben", "Carla", "David", "Eva", "Farid", "Grace", "Hugo", "Iris", "Jonas", "Kemi", "Leo", "Maya",
         "Noah", "Olga", "Pedro", "Rosa", "Sam", "Tara", "Yuki"]
THINGS = ["apples", "books", "marbles", "stickers", "pencils", "cookies", "stamps", "cards", "shells", "coins"]


def held_out_pattern(held_topics: list[str]):
    """A regular expression that matches any held-out topic as a word (without a leading "the", singular or plural):
    a prompt `clear_of_held_out` is given (extra-topic, question-list, question and drill prompts; not `prompt_sets`',
    split by topic instead, nor the follow-ups and rewrites, which quote earlier answers unfiltered) is dropped when
    it matches."""
    import re

    stems = []
    for topic in held_topics:
        words = topic.lower().removeprefix("the ").strip()
        stem = re.escape(words[:-1] if words.endswith("s") and not words.endswith("ss") else words)
        stems.append(stem + r"(?:s|es)?")
    return re.compile(r"\b(?:" + "|".join(stems) + r")\b", re.IGNORECASE)


def held_out_topics(seed: int = 0) -> list[str]:
    """Every family's held-out topics (what `prompt_sets` sets aside with the same seed)."""
    return [topic for _, (_, topics, _) in FAMILIES.items() for topic in split_topics(topics, seed)[1]]


def training_topics(seed: int = 0) -> list[str]:
    """The general family's training topics and the extra ones, none touching a held-out topic."""
    pattern = held_out_pattern(held_out_topics(seed))
    topics = split_topics(GENERAL_TOPICS, seed)[0] + EXTRA_TOPICS
    return [t for t in dict.fromkeys(topics) if not pattern.search(t)]


def clear_of_held_out(prompts: list[Prompt], seed: int = 0) -> list[Prompt]:
    """`prompts` without any that touches a held-out topic or is one of the everyday evaluation questions."""
    pattern = held_out_pattern(held_out_topics(seed))
    everyday = {q.lower() for q in EVERYDAY_QUESTIONS}
    return [p for p in prompts if not pattern.search(p.text) and p.text.strip().lower() not in everyday]


def extra_template_prompts(count: int, seed: int = 0) -> list[Prompt]:
    """At most `count` prompts from the general and code templates over the extra topics (seeded, no repeats): the
    ones that name a held-out topic are dropped (`clear_of_held_out`)."""
    rng = random.Random(seed + 7)
    general = [(tpl, t) for tpl in GENERAL_TEMPLATES for t in EXTRA_TOPICS]
    code_templates = CODE_TEMPLATES + EXTRA_CODE_TEMPLATES
    code = [(tpl, t) for tpl in code_templates for t in EXTRA_CODE_TOPICS]
    rng.shuffle(general)
    rng.shuffle(code)
    n_code = round(count * 0.15)
    picked = [Prompt(f"extra-general-{i:05d}", "general", tpl.format(t=t), t) for i, (tpl, t) in
              enumerate(general[: count - n_code])]
    picked += [Prompt(f"extra-code-{i:05d}", "code", tpl.format(t=t), t) for i, (tpl, t) in enumerate(code[:n_code])]
    return clear_of_held_out(picked, seed)


def question_list_prompts(seed: int = 0) -> list[Prompt]:
    """Self-instruct: the target is asked for lists of questions about each of `training_topics` (the general
    family's training topics and the extra ones; not the code, rewrite or math items)."""
    return clear_of_held_out([Prompt(f"qlist-{i:02d}-{j:04d}", "questions", tpl.format(t=t), t)
                              for i, tpl in enumerate(QUESTION_LIST_TEMPLATES)
                              for j, t in enumerate(training_topics(seed))], seed)


def parse_questions(text: str) -> list[str]:
    """The questions in a list the target wrote: lines ending in "?", without numbering, bullets or quotes,
    3 to 30 words each, starting with a capital letter.

    >>> parse_questions('Here are some:\\n1. What do sharks eat?\\n2. "Can sharks be pets?"\\n- Why?\\nThanks.')
    ['What do sharks eat?', 'Can sharks be pets?']
    """
    import re

    found = []
    for line in text.splitlines():
        line = re.sub(r"^\s*(?:\d+[.)]|[-*•])\s*", "", line).strip().strip('"“”').strip()
        line = re.sub(r"\s*-\s.*$", "", line) if not line.endswith("?") else line
        if line.endswith("?") and 3 <= len(line.split()) <= 30 and line[0].isupper():
            found.append(line)
    return list(dict.fromkeys(found))


def arithmetic_prompts(count: int, seed: int = 0) -> list[Prompt]:
    """Word problems and sums with random numbers (seeded): the target works them out in its own words."""
    rng = random.Random(seed + 11)
    makers = [
        lambda: f"What is {rng.randint(11, 99)} times {rng.randint(3, 49)}?",
        lambda: f"What is {rng.randint(100, 9999)} plus {rng.randint(100, 9999)}?",
        lambda: f"What is {rng.randint(500, 9999)} minus {rng.randint(10, 499)}?",
        lambda: f"What is {rng.choice([5, 10, 15, 20, 25, 30, 40, 50, 75])}% of {rng.randint(2, 60) * 20}?",
        lambda: f"Divide {rng.randint(2, 12) * rng.randint(3, 40)} by {rng.randint(2, 12)}.",
        lambda: (f"{rng.choice(NAMES)} has {rng.randint(12, 90)} {rng.choice(THINGS)} and gives away "
                 f"{rng.randint(2, 11)}. How many are left?"),
        lambda: (f"A car travels {rng.randint(2, 9) * 30} km in {rng.randint(2, 6)} hours. What is its average "
                 "speed?"),
        lambda: (f"{rng.choice(NAMES)} buys {rng.randint(2, 9)} {rng.choice(THINGS)} at ${rng.randint(2, 15)} each. "
                 "How much does that cost?"),
        lambda: f"What is the area of a rectangle that is {rng.randint(2, 30)} m by {rng.randint(2, 30)} m?",
        lambda: f"Convert {rng.randint(2, 600)} minutes to hours and minutes.",
        lambda: f"What is {rng.randint(1, 9)}/{rng.randint(10, 12)} plus {rng.randint(1, 9)}/{rng.randint(10, 12)}?",
        lambda: f"If x + {rng.randint(2, 50)} = {rng.randint(51, 150)}, what is x?",
        lambda: f"Is {rng.randint(20, 400)} a prime number? Explain.",
        lambda: f"What is the average of {', '.join(str(rng.randint(1, 99)) for _ in range(rng.randint(3, 6)))}?",
    ]
    styles = ["{q}", "Solve this step by step: {q}", "{q} Explain your reasoning.",
              "A student asks: {q} Give the answer and a short explanation."]
    out, seen = [], set()
    while len(out) < count:
        text = rng.choice(styles).format(q=rng.choice(makers)())
        if text not in seen:
            seen.add(text)
            out.append(Prompt(f"arith-{len(out):05d}", "math", text))
    return clear_of_held_out(out, seed)
