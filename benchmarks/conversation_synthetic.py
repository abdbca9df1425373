"""Deterministic synthetic conversations for the scale and forgetting benchmarks.

Two people per session, 20 turns, a day apart; sentences are filled templates over a fixed
vocabulary, so the graph gets realistic fan-out (names, places, activities, objects, dates)
without any data download.
"""

from __future__ import annotations

import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graphmem_neo4j.conversation.models import TurnInput

NAMES = (
    "Aiden Bea Carlos Dana Elif Farid Greta Hiro Ines Jonas Kemi Luca Mina Nadia Omar Priya "
    "Quinn Rosa Sami Tara Umar Vera Wen Xavi Yara Zane"
).split()
PLACES = (
    "Lisbon Porto Kyoto Nairobi Oslo Quito Denver Hanoi Cairo Dublin Tallinn Lyon Austin Seoul "
    "Perth Bergen Malaga Krakow Tbilisi Valparaiso"
).split()
ACTIVITIES = (
    "pottery kayaking climbing baking chess salsa cycling surfing knitting birdwatching running "
    "painting gardening fencing archery rowing skating yoga sailing photography"
).split()
OBJECTS = (
    "camera bicycle guitar telescope notebook kettle lantern tent backpack violin drone easel "
    "typewriter compass microscope canoe harmonica skateboard"
).split()
PETS = "puppy kitten parrot rabbit hamster tortoise goldfish ferret".split()
FOODS = "ramen paella dumplings tacos curry risotto pierogi falafel".split()
TEMPLATES = (
    "I finally bought a {object} for my {activity} trips.",
    "Last weekend I went {activity} near {place} with {friend}.",
    "We adopted a {pet} named {pet_name} yesterday!",
    "My {activity} class in {place} starts next week.",
    "Have you ever tried {food}? I cooked it for {friend} on Friday.",
    "{friend} lent me a {object}, which was so kind.",
    "I am planning a trip to {place} in {month} {year}.",
    "The {activity} competition was tough but I came third.",
    "Thanks! How is your {pet} doing?",
    "That sounds wonderful, tell me more.",
    "I lost my {object} at the station in {place}, so annoying.",
    "My sister moved to {place} for a new job in {activity} coaching.",
    "Honestly I just need a quiet weekend.",
    "We watched a documentary about {activity} in {place}.",
    "Can you recommend a good {food} place in {place}?",
    "I started writing a blog about {activity} and {food}.",
)
QUESTIONS = (
    "What did {name} buy for {activity}?",
    "Where did {name} go {activity}?",
    "What pet did {name} adopt?",
    "When is {name} travelling to {place}?",
    "Who lent {name} a {object}?",
    "What did {name} cook for a friend?",
)
MONTHS = "January February March April May June July August September October November".split()


def synthetic_turns(
    count: int, *, seed: int = 7, prefix: str = "syn", start: datetime | None = None
) -> list[TurnInput]:
    rng = random.Random(seed)
    when = start or datetime(2021, 1, 1, 9, 0, tzinfo=UTC)
    turns: list[TurnInput] = []
    session = 0
    while len(turns) < count:
        session += 1
        a, b = rng.sample(NAMES, 2)
        sid = f"{prefix}-s{session:05d}"
        for i in range(min(20, count - len(turns))):
            speaker = a if i % 2 == 0 else b
            text = rng.choice(TEMPLATES).format(
                object=rng.choice(OBJECTS),
                activity=rng.choice(ACTIVITIES),
                place=rng.choice(PLACES),
                friend=rng.choice(NAMES),
                pet=rng.choice(PETS),
                pet_name=rng.choice(NAMES) + "y",
                food=rng.choice(FOODS),
                month=rng.choice(MONTHS),
                year=rng.choice(("2022", "2023", "2024")),
            )
            stamp = int((when + timedelta(minutes=i)).timestamp() * 1000)
            turns.append(TurnInput(sid, f"{sid}-t{i:02d}", speaker, text, stamp))
        when += timedelta(days=1)
    return turns


def synthetic_queries(count: int, *, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [
        rng.choice(QUESTIONS).format(
            name=rng.choice(NAMES),
            activity=rng.choice(ACTIVITIES),
            place=rng.choice(PLACES),
            object=rng.choice(OBJECTS),
        )
        for _ in range(count)
    ]
