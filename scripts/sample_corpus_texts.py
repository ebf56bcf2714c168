"""The prose of sample_corpus/: original texts written for lifededup's tests (no third-party text).

Read by scripts/build_sample_corpus.py.  Every document is a list of
paragraphs; a paragraph starting with "# " is a heading.  REVISIONS lists, per
document, the small edits that make its second and third drafts.
"""

from __future__ import annotations

DOCUMENTS: dict[str, dict[str, object]] = {
    "garden-club-report": {
        "title": "Millbrook Allotment Society: Annual Report 2023",
        "author": "Margaret Oyelaran",
        "created": "2023-11-28T19:30:00",
        "paragraphs": [
            "# Millbrook Allotment Society: Annual Report 2023",
            "This report is presented by the committee to the annual general meeting of the Millbrook "
            "Allotment Society. It covers the growing year from November 2022 to October 2023, the state of "
            "the site, the waiting list, the accounts in outline and the plans that the committee would like "
            "members to discuss before the vote on next year's rents.",
            "# The growing year",
            "The year began badly. A wet and cold spring meant that most plots were not dug until the middle "
            "of April, and the early potatoes on the lower terraces sat in standing water for almost three "
            "weeks. Several members lost their first sowings of broad beans and peas to slugs, which thrived "
            "in the damp. By contrast the summer was long and warm, and the tomato and squash harvests were "
            "the best that anyone on the committee can remember. The courgette glut of August will not be "
            "forgotten quickly by the neighbours who received the surplus.",
            "Blight reached the site in the first week of September, later than in most recent years. Plot "
            "holders who followed the advice in the spring newsletter, and removed affected leaves at once, "
            "saved most of their maincrop potatoes. We repeat the request that blighted material is not put "
            "on the communal compost heaps, where the spores survive the winter.",
            "# The site",
            "The new water trough by the eastern gate was installed in June with the grant from the parish "
            "council, and it has already made a great difference to the plots furthest from the old tap. "
            "The shed roof, on the other hand, leaked throughout the winter and the tools stored inside have "
            "begun to rust. The committee has obtained two quotes for a replacement roof, which are set out "
            "in the accounts section, and recommends the cheaper of the two.",
            "The hedge along the railway line was cut back in February by a group of twelve volunteers, who "
            "also cleared the ditch and rebuilt the dead hedge around the wildlife area. The wildlife area "
            "now has a small pond, dug by the junior members on two Saturdays in May, and frogspawn was seen "
            "there within weeks. Members are asked to keep children and dogs away from the pond edge.",
            "# The waiting list",
            "There are now forty three names on the waiting list, compared with thirty one a year ago. The "
            "committee has agreed to offer half plots to new members wherever an existing holder gives up, "
            "so that more people can start growing sooner. Plot holders who are struggling to keep their "
            "plot in cultivation are encouraged to talk to the secretary about sharing or reducing their "
            "plot before a formal inspection becomes necessary.",
            "# Accounts in outline",
            "Income from rents was slightly higher than last year because of the four new half plots. The "
            "seed order scheme made a small surplus, which has been kept in the general fund. The largest "
            "expense of the year was the water bill, which rose sharply after the meter was replaced. The "
            "treasurer's full statement is available from the notice board and will be presented at the "
            "meeting. The roof quotes were four hundred and twenty pounds from a local builder and six "
            "hundred and ten pounds from a roofing firm in town.",
            "# Plans for next year",
            "The committee proposes to replace the shed roof before the winter, to buy a second wheelbarrow, "
            "and to hold an open day in July so that people on the waiting list can see the site. We would "
            "also like to start a seed swap in February. Volunteers for any of these projects should speak "
            "to any member of the committee. Finally, we thank everyone who gave their time this year, and "
            "especially the members who looked after the plots of others during illness.",
        ],
    },
    "residents-minutes": {
        "title": "Elm Court Residents' Association: Minutes of the Spring Meeting",
        "author": "Tomasz Wierzbicki",
        "created": "2024-03-14T21:05:00",
        "paragraphs": [
            "# Elm Court Residents' Association: Minutes of the Spring Meeting",
            "The meeting was held in the community room on Thursday evening. Present were nineteen residents "
            "from fourteen flats, the caretaker, and a representative of the housing association who attended "
            "for the item on repairs. The chair welcomed two new residents from the third floor and thanked "
            "the social committee for the refreshments.",
            "# Minutes of the last meeting",
            "The minutes of the autumn meeting were agreed as a correct record. Under matters arising, the "
            "secretary reported that the broken light in the rear stairwell had finally been repaired after "
            "four reminders, and that the bicycle shelter had been ordered but would not be installed until "
            "the summer because of a delay at the manufacturer.",
            "# Repairs and maintenance",
            "The representative of the housing association apologised for the slow response to the damp "
            "problems reported in the ground floor flats. A surveyor has now visited every affected flat and "
            "the association has agreed to replace the damaged guttering on the north side of the building. "
            "Residents asked for a date for the work. The representative said that the contractor would "
            "start in April and that residents would receive a letter two weeks before any scaffolding went "
            "up. Several residents said that previous letters had never arrived, and the association agreed "
            "to post the notice in the entrance hall as well.",
            "The lift was out of service for eleven days in February. Residents on the upper floors, "
            "including two who use wheelchairs, described how difficult this had been. The association "
            "agreed to look into a maintenance contract with a faster call out time and to report back at "
            "the next meeting. The caretaker was thanked for carrying shopping for several residents while "
            "the lift was broken.",
            "# Gardens and bins",
            "The gardening group reported that the raised beds by the entrance have been replanted with "
            "herbs that any resident may pick. Volunteers are needed for watering in the summer holidays. "
            "There was a long discussion about the recycling bins, which are often full before the "
            "collection day. It was agreed that the secretary would ask the council for a second blue bin "
            "and that a notice would remind residents to flatten cardboard boxes.",
            "# Social events",
            "The summer barbecue will be held on the last Saturday in June, weather permitting. The social "
            "committee asked for help with setting up tables and with a small collection to cover the cost "
            "of food. The children's film afternoon in the community room was popular and will be repeated "
            "in the autumn half term.",
            "# Any other business",
            "A resident raised the problem of cars parked across the entrance to the bin store. The chair "
            "agreed to write to all residents about it. The treasurer reported a balance of two hundred and "
            "thirty pounds. The next meeting will be held in September. The meeting closed at nine o'clock.",
        ],
    },
    "portugal-trip": {
        "title": "Ten days in northern Portugal: travel plan",
        "author": "Ines Carvalho",
        "created": "2024-07-02T08:15:00",
        "paragraphs": [
            "# Ten days in northern Portugal",
            "This is our plan for the trip in September, for the four of us: Ines, David, and the two "
            "children. We fly into Porto on a Saturday morning and out again from Porto ten days later. We "
            "will hire a car for the middle part of the trip only, because driving and parking in Porto is "
            "not worth the trouble and the trains along the Douro are better than any road.",
            "# Porto, days one to three",
            "We stay in the apartment near the Bolhão market that we booked in March. The first afternoon "
            "is for walking down to the river through the old town and crossing the upper deck of the iron "
            "bridge to the port lodges on the other side. On the second day we take the tram along the "
            "river to Foz, eat lunch by the lighthouse and let the children swim if the sea is calm. The "
            "third day is for the Serralves gardens in the morning and the bookshop and the cathedral in the "
            "afternoon, if the queues are short.",
            "# The Douro valley, days four to six",
            "We take the early train from São Bento station up the valley to Pinhão, which takes about two "
            "and a half hours and follows the river almost the whole way. We stay three nights at the small "
            "guesthouse above the village that belongs to a family vineyard. They offer a walk through the "
            "terraces and a visit to the old stone presses. September is the harvest, so the roads will be "
            "busy with tractors, and we should expect to be invited to help with the picking.",
            "On the sixth day we collect the hire car in Régua, after the train back down the valley, and "
            "drive north through the hills to the national park.",
            "# Peneda-Gerês, days seven and eight",
            "Two nights in the village of Soajo, in a converted granary house. The walks from the village "
            "lead up to the granite outcrops and to the waterfalls where it is possible to swim in the "
            "pools. We must take care on the mountain roads, which are narrow and full of wandering cattle. "
            "The long-horned cows of the region are gentle but do not move for cars.",
            "# Braga and Guimarães, days nine and ten",
            "On the way back south we spend a night in Braga and climb the great staircase of the sanctuary "
            "above the city, or take the water-powered funicular if the children are tired. The last day is "
            "for the castle and the old centre of Guimarães, then we return the car at the airport in the "
            "evening and fly home the next morning.",
            "# Budget and bookings",
            "The flights, the apartment and the guesthouse are paid. Still to book: the hire car, the night "
            "in Soajo and the hotel in Braga. The budget for food and activities is around eighty euros a "
            "day for the four of us, which should be enough if we eat one big meal at lunchtime, as the "
            "Portuguese do, and something simple in the evening.",
        ],
    },
    "family-recipes": {
        "title": "Recipes from Grandmother Halina's kitchen",
        "author": "Anna Kowalczyk",
        "created": "2022-12-18T16:40:00",
        "paragraphs": [
            "# Recipes from Grandmother Halina's kitchen",
            "These are the recipes that Grandmother Halina cooked for us every winter, written down as "
            "closely as possible to the way she made them. She never used a scale, so the quantities are my "
            "best guesses from watching her and from several failed attempts of my own. Where she would "
            "have said a handful or a glass, I have given a measure in grams or millilitres.",
            "# Rye bread with caraway",
            "Mix three hundred grams of dark rye flour with two hundred grams of strong white flour, a "
            "teaspoon of salt and a tablespoon of caraway seeds. Dissolve seven grams of dried yeast and a "
            "teaspoon of honey in three hundred and fifty millilitres of warm water, pour it into the flour "
            "and stir until there are no dry patches. The dough will be sticky; do not add more flour. "
            "Cover the bowl and leave it somewhere warm for two hours. Scrape the dough into a greased loaf "
            "tin, smooth the top with a wet spoon, and leave it for another hour. Bake at two hundred "
            "degrees for fifty minutes. Grandmother always tapped the bottom of the loaf and listened for "
            "the hollow sound before she took it out of the tin.",
            "# Beetroot soup for Christmas Eve",
            "Peel and slice a kilo of beetroot, an onion, a carrot and a piece of celeriac. Cover them with "
            "two litres of cold water, add two bay leaves, a few allspice berries and a handful of dried "
            "mushrooms, and simmer gently for an hour. Strain the soup through a cloth, season it with salt, "
            "a little sugar and the juice of a lemon, and add a crushed clove of garlic. The soup should be "
            "clear and deep red, sweet and sour at the same time. On Christmas Eve we ate it with small "
            "mushroom dumplings, which are the most difficult part of the whole meal and are described "
            "separately below.",
            "# Mushroom dumplings",
            "For the filling, soak the mushrooms that were cooked in the soup, chop them finely and fry them "
            "with a chopped onion in butter until dry. Season with pepper and a little salt. For the dough, "
            "mix two hundred grams of flour with an egg, a pinch of salt and enough warm water to make a "
            "soft dough. Roll it thin, cut it into small squares, put a little filling on each and fold them "
            "into triangles, then join the two corners to make little ears. Boil them in salted water until "
            "they float, and serve them in the soup.",
            "# Plum cake",
            "In late summer, when the purple plums were ripe, Grandmother made a flat yeast cake covered "
            "with halved plums and crumble. Make a soft dough with four hundred grams of flour, a glass of "
            "warm milk, twenty grams of fresh yeast, two eggs, eighty grams of sugar and eighty grams of "
            "melted butter. Let it rise, spread it in a large tin, and cover it closely with plums, cut side "
            "up. For the crumble, rub together one hundred grams each of flour, sugar and cold butter. "
            "Scatter it over the plums, let the cake rise for half an hour, and bake it at one hundred and "
            "eighty degrees for about forty minutes. It is best on the day it is made, still slightly warm.",
        ],
    },
    "river-survey": {
        "title": "Water quality in the upper Lune: a volunteer survey",
        "author": "Dr. Rachel Fairbairn",
        "created": "2023-05-22T10:00:00",
        "paragraphs": [
            "# Water quality in the upper Lune: a volunteer survey",
            "# Summary",
            "Between April and September a group of twenty two volunteers sampled the river at nine places "
            "between the source and the town, every second week. This report describes the methods, the "
            "main results and the questions that the survey cannot answer. In short, the upper river is in "
            "good health, but two of the sampling points below the farms show high levels of phosphate after "
            "heavy rain, and the invertebrate counts at those points are lower than upstream.",
            "# Methods",
            "Each team measured the water temperature, the pH and the conductivity on the bank with a "
            "calibrated meter, and took a bottle of water for the phosphate and nitrate tests, which were "
            "done the same evening with colour comparison kits. Once a month each team also did a three "
            "minute kick sample, disturbing the river bed upstream of a net and counting the animals caught "
            "in eight groups, from mayfly nymphs to freshwater shrimps. The counts were entered into a shared "
            "spreadsheet, and the team leaders checked each other's entries at the end of every month.",
            "The kits are not laboratory instruments. Their results for phosphate are only reliable to "
            "about a tenth of a milligram per litre, and readings taken in poor light were often revised by "
            "a second reader. We have kept every reading, including the revised ones, so that the "
            "uncertainty can be judged by anyone who uses the data.",
            "# Results",
            "Temperatures followed the weather closely and never exceeded nineteen degrees, even during the "
            "hot spell in June. The pH stayed between seven and eight at all points. Nitrate was low "
            "everywhere except at point six, below the dairy farm, where it rose after each spell of heavy "
            "rain. Phosphate was low at the upper points but reached high levels at points six and seven on "
            "four of the sampling days, all of them within two days of more than twenty millimetres of rain.",
            "The invertebrate counts tell the same story. Mayfly and stonefly nymphs, which need clean and "
            "well oxygenated water, were abundant at the upper five points and scarce at points six and "
            "seven. Freshwater shrimps and snails, which tolerate more pollution, were common at every point.",
            "# What the survey cannot say",
            "A volunteer survey of one season cannot show where the phosphate comes from. Possible sources "
            "include the spreading of slurry on the fields above point six, a septic tank serving the holiday "
            "cottages, and sediment washed from the eroded bank by the ford. The group has shared its data "
            "with the river trust and the environment agency and has asked whether the farm would be willing "
            "to talk about the timing of slurry spreading.",
            "# Next steps",
            "We plan to continue the survey next year with the same methods, to add one sampling point above "
            "the ford, and to repeat the kick samples in early spring, when the nymphs are largest. We thank "
            "the landowners who gave us access to the river, and every volunteer who stood in cold water with "
            "a net.",
        ],
    },
    "kitchen-quotes": {
        "title": "Kitchen renovation: comparing the three quotes",
        "author": "Samuel Adeyemi",
        "created": "2024-01-09T20:20:00",
        "paragraphs": [
            "# Kitchen renovation: comparing the three quotes",
            "We asked three firms to quote for the same work: removing the old units, moving the sink under "
            "the window, new base and wall units, a worktop, tiling behind the hob and the sink, and "
            "replacing the flooring. Each firm visited the house and measured the room. This note sets out "
            "what each quote includes, where they differ, and which one we think is the best value.",
            "# Quote one: the large showroom",
            "The showroom's quote was the most detailed, with drawings of the new layout and a list of every "
            "unit and handle. The units are made in their own factory and come with a ten year guarantee. "
            "The price includes fitting but not the plumbing and electrical work, which they subcontract and "
            "quote separately after the units are ordered. The worktop is a laminate; a stone worktop would "
            "add a large amount to the total. They could start in eight weeks.",
            "# Quote two: the local joiner",
            "The joiner who fitted the neighbours' kitchen gave a shorter quote, written by hand, but he "
            "explained every item in person and answered all our questions. He would build the units to "
            "measure from solid wood and birch plywood, which should last far longer than chipboard. The "
            "price includes the plumbing, done by his brother, but not the electrics. He cannot start until "
            "the spring, and the work would take about five weeks because the units are made in his workshop.",
            "# Quote three: the fitting company",
            "The third firm fits units from a national supplier. Their quote was the cheapest and includes "
            "everything, even the removal of the old units and the disposal of the rubbish. However, the "
            "units in the quote are the basic range, and the doors we liked in the brochure would cost "
            "almost a third more. Reviews of the firm are mixed: most customers were happy, but several "
            "complained about delays and about fitters who left before the job was finished.",
            "# Comparison",
            "Once the missing items are added to each quote, the three totals are closer than they looked "
            "at first. The showroom is the most expensive, the joiner is in the middle and the fitting "
            "company is the cheapest, but only by a small margin once the better doors are included. The "
            "joiner's units would be the strongest, and we trust him because we have seen his work.",
            "# Decision",
            "We have decided to accept the joiner's quote and to wait until the spring. In the meantime we "
            "need to ask an electrician to quote for the new sockets and the lights under the wall units, "
            "and to choose the tiles. We will tell the other two firms of our decision and thank them for "
            "their time.",
        ],
    },
}

# Per document, the edits of each later draft: (old, new) replacements.  Drafts differ by a
# word or a short sentence, as successive saves of one document do: the second draft changes
# a word, the third adds the EXTRA sentence.
REVISIONS: dict[str, list[list[tuple[str, str]]]] = {
    "garden-club-report": [[("forty three names", "forty five names")], []],
    "residents-minutes": [[("nineteen residents", "twenty residents")], []],
    "portugal-trip": [[("around eighty euros", "around ninety euros")], []],
    "family-recipes": [[("a few allspice berries", "four allspice berries")], []],
    "river-survey": [[("twenty two volunteers", "twenty four volunteers")], []],
    "kitchen-quotes": [[("about five weeks", "about six weeks")], []],
}
EXTRA = {
    "garden-club-report": "The parish council has offered a further grant.",
    "residents-minutes": "A second blue bin arrives in May.",
    "portugal-trip": "Pack the children's swimming things.",
    "family-recipes": "Halina added sour cream to each bowl.",
    "river-survey": "The farm has agreed to meet the group.",
    "kitchen-quotes": "The electrician visits on the twenty third.",
}

LETTERHEAD = [
    "Hartwell & Penrose LLP, Solicitors",
    "14 Castle Street, Lancaster LA1 1EX. Telephone 01524 550 120. www.hartwell-penrose.example",
    "Authorised and regulated by the Solicitors Regulation Authority, number 612345.",
]
LETTER_FOOTER = ("This letter and any attachments are confidential and intended only for the named recipient. "
                 "If you have received it in error, please tell us at once and destroy your copy. Hartwell & "
                 "Penrose LLP is a limited liability partnership registered in England and Wales.")
LETTERS: dict[str, tuple[str, str, list[str]]] = {
    "2023-02-06-probate": ("Mrs. J. Thornber", "Estate of the late Mr. Edward Thornber", [
        "Thank you for coming to see us last Tuesday and for bringing your late husband's papers. We were "
        "very sorry to hear of his death, and we will do everything we can to make the administration of "
        "his estate as simple as possible for you.",
        "As we explained, the will names you as the sole executor. We will now apply for the grant of "
        "probate on your behalf. Before we can do so, we need valuations of the house in Caton and of the "
        "shares held with the building society, and the final statements of the two bank accounts.",
        "We enclose a form that allows the banks to release the statements to us. Please sign it where "
        "marked and return it in the envelope provided. We expect the application to take about three "
        "months once we have all the valuations.",
    ]),
    "2023-05-19-lease": ("Mr. D. Achebe", "Lease of the shop at 3 Market Square", [
        "We have now reviewed the draft lease sent by the landlord's solicitors for the shop you intend "
        "to rent in Market Square. Most of the terms are usual for a commercial lease of this kind, but "
        "there are three points we recommend you raise before signing.",
        "First, the repairing clause makes you responsible for the roof and the outside walls, which is "
        "unusual for a lease of only five years. Second, the rent review allows increases but never a "
        "decrease. Third, there is no break clause, so you could not leave early if the business did not "
        "succeed. We suggest asking for a break at the end of the third year.",
        "Please let us know whether you would like us to negotiate these points with the landlord.",
    ]),
    "2023-09-01-boundary": ("Ms. P. Lindqvist", "Boundary with the neighbouring field", [
        "You asked us to look into the position of the boundary between your garden and the field owned "
        "by the farm next door, after the farmer moved the fence last month.",
        "We have obtained the title plans of both properties from the Land Registry. As you know, these "
        "plans show general boundaries only and cannot settle an exact line. However, the conveyance of "
        "1962 describes the boundary as following the old hawthorn hedge, and the remains of that hedge "
        "are still visible on the aerial photographs we have seen.",
        "We suggest a friendly letter to the farmer first, with copies of the plan and the photographs, "
        "before any more formal step is considered.",
    ]),
    "2024-01-15-will": ("Mr. and Mrs. Haworth", "Your new wills", [
        "Thank you for your instructions to prepare new wills following the birth of your grandson. We "
        "enclose the drafts for you to read carefully at home.",
        "Each will leaves everything to the surviving spouse, and then in equal shares to your two "
        "daughters, with a gift of five thousand pounds to each grandchild living at the second death. "
        "You asked us to include a wish that the cottage in Dent stays in the family; as we discussed, "
        "this wish cannot bind your daughters but it can be recorded in a letter that accompanies the wills.",
        "When you are happy with the drafts, please telephone to arrange a time to sign them in our "
        "office, where two of our staff will act as witnesses.",
    ]),
    "2024-06-27-employment": ("Ms. K. Mensah", "Your settlement agreement", [
        "We have reviewed the settlement agreement offered by your employer, as you asked, and we are able "
        "to advise you on its terms and effect, which the law requires before it can be binding.",
        "The agreement offers three months' pay in addition to your notice pay, and a reference in an "
        "agreed form. In return you would give up any claims against the company arising from your "
        "employment. Given the facts you described, we think the offer is reasonable, although you might "
        "ask for the reference to mention your work on the new accounting system.",
        "The employer has agreed to contribute five hundred pounds towards our fees for this advice.",
    ]),
}

MIT_LICENCE = (
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and "
    "associated documentation files (the \"Software\"), to deal in the Software without restriction, including "
    "without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell "
    "copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the "
    "following conditions: The above copyright notice and this permission notice shall be included in all "
    "copies or substantial portions of the Software. THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF "
    "ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR "
    "A PARTICULAR PURPOSE AND NONINFRINGEMENT."
)
PROJECTS: dict[str, tuple[str, list[str]]] = {
    "bird-counter": ("Bird counter", [
        "A small program that reads the sightings exported from the garden bird survey app and prints, for "
        "each species, the largest number seen at one time in each month of the year.",
        "Run it with the path of the exported file. The output is a table that can be pasted into the "
        "survey's yearly return. Species names are matched case-insensitively, and the common misspellings "
        "of goldfinch and chaffinch found in our own records are corrected.",
    ]),
    "meter-readings": ("Meter readings", [
        "Scripts that collect the gas and electricity meter readings we take every Sunday morning, check "
        "them for typing mistakes, and draw a chart of the weekly use against the outside temperature.",
        "A reading lower than the previous week's is flagged, because the meters only count upwards. The "
        "chart makes it easy to see how much the new loft insulation changed the gas used in cold weeks.",
    ]),
    "choir-rota": ("Choir rota", [
        "Builds the rota of who brings the tea and biscuits and who locks the hall after each rehearsal of "
        "the village choir, so that nobody is asked twice in a row and the duties are shared fairly.",
        "The list of singers and their unavailable dates lives in a plain text file. The rota is printed as "
        "a page for the notice board and as a calendar file that members can import on their phones.",
    ]),
    "recipe-scaler": ("Recipe scaler", [
        "Multiplies or divides the quantities in a recipe written in plain text, converting between cups, "
        "grams and millilitres where it knows the density of the ingredient, and rounding to sensible amounts.",
        "Eggs are never split into fractions: a recipe scaled down to a third asks for one egg and says "
        "to beat it and use a third of it. Baking times are not changed, but a warning is printed.",
    ]),
}

WEB_ARTICLES: dict[str, tuple[str, str, list[str]]] = {
    "lighthouse-walk": ("A winter walk to the lighthouse at St Bees Head", "2023-12-02", [
        "The coast path from St Bees to the lighthouse is one of the finest short walks in the north west, "
        "and on a clear winter day it feels like the edge of the world. The path climbs steeply from the "
        "beach car park onto the red sandstone cliffs, and within twenty minutes the noise of the village "
        "is replaced by the sea and the seabirds.",
        "In winter the ledges are quiet, but fulmars are often back on the cliffs by January, gliding along "
        "the edge without a single beat of their wings. On a clear day the Isle of Man is visible across "
        "the water, and sometimes the hills of Galloway to the north.",
        "The lighthouse itself is not open to visitors, but the path passes close to its white wall before "
        "dropping to the cove at Fleswick Bay, where the pebbles include agates and jasper polished by the "
        "sea. From there it is possible to return the same way, or to continue to the second headland and "
        "come back by the quiet lane through the farms.",
        "Allow three hours for the full walk. The cliff edge is unfenced in places and the path can be "
        "muddy after rain, so good boots are needed, and dogs should be kept on a lead near the edge.",
    ]),
    "sourdough-starter": ("How to keep a sourdough starter alive on holiday", "2024-02-18", [
        "Every baker who keeps a sourdough starter faces the same question before a holiday: who will feed "
        "it? The good news is that a healthy starter is far tougher than most people think, and with a "
        "little preparation it can survive two or three weeks without any attention at all.",
        "The simplest method is to give the starter a stiff feed the day before you leave. Mix it with "
        "twice its weight of flour and only a little water, so that it forms a firm dough, and put it in a "
        "clean jar in the coldest part of the refrigerator. The low temperature and the dry dough slow the "
        "yeast and bacteria down, so that they take many days to use up the food.",
        "For longer absences, spread a thin layer of active starter on baking paper and let it dry "
        "completely at room temperature. Break the dry flakes into a jar. They will keep for months, and a "
        "spoonful mixed with flour and water will come back to life within a few days.",
        "When you return, expect a layer of grey liquid on top of the refrigerated starter. Pour it off, "
        "take a spoonful from the middle and feed it twice a day for two days before baking.",
    ]),
    "repair-cafe": ("Repair café marks its fiftieth session", "2024-04-06", [
        "The repair café that meets on the first Saturday of every month in the church hall celebrated its "
        "fiftieth session last weekend, with a cake and a record number of repairs. Since it began four "
        "years ago, volunteers have mended more than two thousand items that would otherwise have been "
        "thrown away.",
        "The most common repairs are to small electrical appliances, such as toasters, lamps and vacuum "
        "cleaners, followed by clothes and bicycles. The organisers say that about seven in ten items leave "
        "the hall working again, and that the visitors learn to do many of the simpler repairs themselves.",
        "One volunteer, a retired television engineer, has repaired more than three hundred radios and "
        "record players. He says that the oldest appliances are usually the easiest to fix, because they "
        "were made to be opened and their parts can still be found.",
        "The café is always looking for volunteers, especially people who can sew or who know about "
        "computers. No booking is needed: visitors simply bring their broken item and wait for a free table.",
    ]),
}

MAIL_THREADS: dict[str, list[tuple[str, str, str, str]]] = {
    # (from, to, date, body) -- each reply quotes the message before it.
    "Choir concert in the abbey": [
        ("Helen Pryce <helen.pryce@example.org>", "Choir members <choir@example.org>", "2024-03-04 18:12",
         "Dear all,\n\nThe abbey has confirmed that we can hold the summer concert there on Saturday the 22nd "
         "of June. The rehearsal on the day will start at two, and the concert at half past seven. Could "
         "everyone let me know by the end of the month whether they can sing, so that I can plan the parts? "
         "We will need people to help with the chairs and the tickets as well.\n\nThank you,\nHelen"),
        ("Owen Lloyd <owen.lloyd@example.org>", "Helen Pryce <helen.pryce@example.org>", "2024-03-04 20:47",
         "Hi Helen,\n\nWonderful news. I can sing, and I can bring the van to carry the staging from the hall "
         "on the Saturday morning, if someone can help me load it at about ten.\n\nOwen"),
        ("Helen Pryce <helen.pryce@example.org>", "Owen Lloyd <owen.lloyd@example.org>", "2024-03-05 08:03",
         "Thank you Owen, that is a great help. Marion and her son have offered to help with the loading, so "
         "the three of you could meet at the hall at ten.\n\nHelen"),
        ("Marion Shaw <marion.shaw@example.org>", "Helen Pryce <helen.pryce@example.org>", "2024-03-06 12:30",
         "Ten o'clock is fine for both of us. Shall we bring the music stands too, or does the abbey have "
         "its own? I remember that last time we were short of them.\n\nMarion"),
    ],
    "Boiler service and the spare key": [
        ("Priya Nair <priya.nair@example.org>", "Daniel Brook <daniel.brook@example.org>", "2024-10-14 09:15",
         "Hello Daniel,\n\nThe engineer is coming to service the boiler on Thursday between eight and one. I "
         "am at work all day. Could you let him in with the spare key? He will need about an hour and will "
         "have to turn the water off for part of it.\n\nMany thanks,\nPriya"),
        ("Daniel Brook <daniel.brook@example.org>", "Priya Nair <priya.nair@example.org>", "2024-10-14 12:02",
         "Of course. I am working from home on Thursday, so I will listen for the door. Is the key still in "
         "the blue tin on my kitchen shelf, or did you take it back after the summer?\n\nDaniel"),
        ("Priya Nair <priya.nair@example.org>", "Daniel Brook <daniel.brook@example.org>", "2024-10-14 12:40",
         "It should still be in the blue tin. If it isn't, the neighbour at number twelve has another one. "
         "Thank you so much, I will bring you a cake at the weekend.\n\nPriya"),
    ],
}

# Sentences for the many small unrelated notes (journal entries, lists) that fill out the archive.
JOURNAL_SENTENCES = [
    "Woke early and walked to the bakery before the rain started.",
    "The plumber finally came and fixed the dripping tap in the bathroom.",
    "Spent the afternoon sorting old photographs from my father's boxes.",
    "Called Mum; she is feeling better and has started walking again.",
    "The car failed its inspection because of a worn tyre and a broken number plate light.",
    "Read two chapters of the novel about the lighthouse keeper's daughter.",
    "The heating came on for the first time this autumn.",
    "Planted garlic in the raised bed by the shed.",
    "Our neighbour brought round a bag of apples from her tree.",
    "The train was cancelled, so I worked from home and finished the budget.",
    "Lina lost her first tooth at breakfast and put it under her pillow.",
    "Bought a second-hand bicycle for the commute; the gears need adjusting.",
    "The library book sale had a whole shelf of old maps.",
    "Cleaned the gutters before the storm that is forecast for tomorrow.",
    "Tried a new recipe for lentil soup with smoked paprika; too much paprika.",
    "The dentist says the filling can wait until the spring.",
    "Went swimming at the lido; the water was cold but clear.",
    "Paid the council tax and the water bill.",
    "Sat in the garden with a coffee and watched the blue tits at the feeder.",
    "The choir rehearsal ran late because the tenors kept losing their place.",
    "Repainted the front door a dark green.",
    "Found the missing passport at the back of the desk drawer.",
    "Long video call with Tom, who has moved to Wellington.",
    "The tomatoes on the windowsill are finally turning red.",
    "Booked the ferry for the summer holiday.",
    "Fixed the wobbly leg of the kitchen table with a folded beer mat.",
    "The power went off for an hour in the evening; we played cards by candlelight.",
    "Walked up the hill behind the village and saw three hares in the stubble.",
    "Started knitting a scarf from the wool Grandma left.",
    "The new neighbours introduced themselves; they have two spaniels.",
    "Wrote the thank-you letters for the birthday presents.",
    "Took the old sofa to the recycling centre.",
    "The river was higher than I have ever seen it.",
    "A fox crossed the road in front of me on the way home.",
    "Rearranged the bookshelves by colour, which was a mistake.",
    "The printer jammed again; I think it is time for a new one.",
    "Made plum jam with the last of the fruit.",
    "Sent off the application for the allotment.",
    "Watched the meteor shower from the back step until midnight.",
    "Bought new walking boots and wore them around the house all evening.",
]
SHOPPING = ["milk", "eggs", "rye flour", "caraway seeds", "lemons", "onions", "carrots", "washing-up liquid",
            "bin bags", "coffee", "oats", "butter", "tomatoes", "lentils", "smoked paprika", "rice", "apples",
            "bread", "cheese", "yoghurt", "light bulbs", "batteries", "toothpaste", "plums", "sugar"]

# An essay whose footnotes sit at the foot of a page in the PDF and after the body in the DOCX:
# seeds/000 section 2.2, note 1.  "[[...]]" marks a footnote at the point it is cited.
ESSAY = {
    "title": "The mill at Low Bentham: notes towards a history",
    "author": "Ruth Ashworth",
    "paragraphs": [
        "The mill at Low Bentham stands where the river narrows between two outcrops of grit, a place "
        "chosen because a short weir could raise enough head of water to turn a wheel through the driest "
        "summers. The first record of a mill on the site is a lease of 1783, which mentions a corn mill "
        "and a kiln for drying oats.[[Lease in the county record office, reference DDX 114/7; the "
        "handwriting is difficult and the date may be 1788.]]",
        "In the early nineteenth century the building was enlarged and converted to spin flax, and later "
        "silk. The conversion brought workers from the surrounding farms and from as far away as "
        "Lancaster, and the row of cottages along the lane was built to house them. The census of 1851 "
        "lists eighty three people employed at the mill, of whom more than half were children under "
        "sixteen, some of them as young as nine.[[Census enumerators' books for the township, 1851; the "
        "ages given are not always consistent with the baptism registers.]]",
        "The silk trade declined after the commercial treaty with France in 1860 removed the duties that "
        "had protected English producers. The mill changed hands three times in twenty years, and each "
        "owner tried a different trade: cotton waste, then bobbins, then the dressing of silk waste for "
        "other mills. None of these lasted, and by the end of the century most of the building was empty.",
        "In the twentieth century the mill found a new use as a store and workshop for a firm making "
        "agricultural machinery, and the wheel was replaced by a turbine that generated electricity for "
        "the works and, for a time, for the village street lamps. Older residents still remember the "
        "lamps dimming whenever the river was low in summer.[[Conversations with three residents in the "
        "spring of 2023; their memories agree on the dimming lamps but not on the years.]]",
        "The building is now divided into flats, but the weir, the head race and the turbine house can "
        "still be seen from the footpath on the far bank. Much remains to be found: the account books of "
        "the flax period have not been traced, and the fate of the original wheel is unknown.",
    ],
}
