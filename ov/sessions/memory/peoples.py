"""Whether a capitalised word names a people ("German", "Brazilian", "Sri Lankan") rather than a person.

"I'm Dana, a backend engineer" introduces Dana; "I'm Brazilian, a designer" says where the user is
from, in the same shape. A people's word is told from a given name by what it is made of, not by a
list of peoples:

- a language's name, as Python's locale names languages ("German", "Dutch", "Polish"), or a word
  ending as only peoples' words do ("-ese", "-ish": "Chinese", "Scottish");
- a country's name with a people's ending, undone the ways English makes them: "-an" after the
  name ("Kenya", "Cuba", "Korea") or in place of its "-o" ("Mexico", "Morocco"), "-ian" after it
  or in place of its last vowel ("Brazil", "Canada", "Italy", "Haiti", "Belgium"), or after a
  joining consonant ("Peru-vian", "Panama-nian"), "-i", "-ic", "-er" ("Pakistan", "Iceland",
  "New Zealand"). Given names that end alike ("Brian", "Adrian", "Christian", "Ryan", "Jordan")
  undo to no country, so they stay names; a country's name itself ("Jordan", "Chad") is a name.
"""

from __future__ import annotations

import locale
import re

# Python's own names of languages ("german", "italian", "american"): no list kept here.
_LANGUAGES = frozenset(name for name in locale.locale_alias if name.isalpha())

# The words of countries' and territories' names, from the time zone database's iso3166.tab
# (public domain), lower case, those of four letters or more that name the place (no "islands",
# "republic", "united"), and the continents': what a people's word is made from.
_COUNTRY_TEXT = """
asia europe oceania
afghanistan africa albania algeria andorra angola anguilla antarctica antigua arab arabia argentina armenia aruba
australia austria azerbaijan bahamas bahrain bangladesh barbados belarus belgium belize benin bermuda bhutan bissau
bolivia bosnia botswana brazil britain brunei bulgaria burkina burma burundi caledonia cambodia cameroon canada cayman
chad chile china colombia comoros congo costa croatia cuba curaçao cyprus czech côte denmark djibouti dominica
dominican ecuador egypt emirates eritrea estonia eswatini ethiopia falkland faroe faso fiji finland france gabon gambia
georgia germany ghana gibraltar greece greenland grenada guadeloupe guam guatemala guernsey guiana guinea guyana haiti
honduras hong hungary iceland india indonesia iran iraq ireland israel italy jamaica japan jersey jordan kazakhstan
kenya kiribati kong korea kuwait kyrgyzstan lanka laos latvia lebanon leone lesotho liberia libya liechtenstein
lithuania luxembourg macau macedonia madagascar malawi malaysia maldives mali malta martinique mauritania mauritius
mayotte mexico micronesia moldova monaco mongolia montenegro montserrat morocco mozambique myanmar namibia nauru nepal
netherlands nicaragua niger nigeria niue norway oman pakistan palau palestine panama papua paraguay peru philippines
poland polynesia portugal puerto qatar rica rico romania russia rwanda réunion sahara salvador samoa saudi senegal
serbia seychelles sierra singapore slovakia slovenia somalia spain sudan suriname swaziland sweden switzerland syria
taiwan tajikistan tanzania thailand timor togo tonga trinidad tunisia turkey turkmenistan tuvalu uganda ukraine
uruguay uzbekistan vanuatu venezuela verde vietnam yemen zambia zealand zimbabwe
"""
_COUNTRY_WORDS = frozenset(_COUNTRY_TEXT.split())

# A people's ending and what it stood in place of at the end of the country's name ("" : added).
_ENDINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("vian", ("",)),  # Peru-vian
    ("nian", ("",)),  # Panama-nian
    ("ian", ("", "a", "e", "y", "i", "ium")),  # Brazil-ian, Canad-ian, Ukrain-ian, Ital-ian, Hait-ian, Belg-ian
    ("an", ("", "a", "o")),  # Chile-an, Kenya-n, Mexic-an
    ("ic", ("",)),  # Iceland-ic
    ("er", ("",)),  # (New) Zealand-er
    ("i", ("", "ia")),  # Pakistan-i, Somali(a)
)


def is_people(word: str) -> bool:
    """Whether ``word`` names a people (see the module's doc): "German", "Scottish", "Brazilian",
    "Mexican", "Lankan"; not "Brian", "Adrian", "Ian", "Christian", "Jordan"."""
    word = word.casefold()
    if word in _LANGUAGES or re.search(r"(?:ese|ish)$", word):
        return True
    for ending, stood_for in _ENDINGS:
        stem = word.removesuffix(ending)
        if stem != word and any(stem + tail in _COUNTRY_WORDS for tail in stood_for if len(stem + tail) >= 4):
            return True
    return False
