"""Industry profiles: names, economics and rhythm of a kind of advertiser."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    slug: str
    brand: str                 # the advertiser's brand, used in campaign names and brand terms
    model: str                 # "ecom" (value-based, ROAS target) or "leads" (CPA target)
    currency: str
    time_zone: str
    country: str
    themes: tuple[str, ...]    # non-brand themes, one per non-brand campaign
    terms: dict[str, tuple[str, ...]]  # converting search terms by theme
    junk_terms: tuple[str, ...]        # plausible terms that never convert (waste scenarios)
    value_per_conversion: float        # average order value, or the value of a lead
    target: float              # target CPA (leads) or target ROAS (ecom)
    monthly_budget: float      # rough size of the account per month
    weekend: float = 0.8       # weekend volume relative to weekdays
    conversion_name: str = "Purchase"


def _p(**kw) -> Profile:
    return Profile(**kw)


PROFILES: dict[str, Profile] = {p.slug: p for p in [
    _p(slug="outdoor-retail", brand="Bergsteig", model="ecom", currency="EUR", time_zone="Europe/Berlin", country="DE",
       themes=("Tents", "Jackets", "Boots"),
       terms={"Tents": ("3 personen zelt", "ultraleicht zelt", "trekkingzelt kaufen", "zelt wasserdicht"),
              "Jackets": ("hardshell jacke herren", "regenjacke damen", "softshelljacke"),
              "Boots": ("wanderschuhe herren", "trekkingschuhe wasserdicht", "bergschuhe damen")},
       junk_terms=("zelt selber bauen", "zelt leihen", "wanderschuhe gebraucht", "regenjacke reparieren", "outdoor jobs münchen"),
       value_per_conversion=128.0, target=5.0, monthly_budget=42000.0, weekend=0.92),
    _p(slug="dental-clinic", brand="Smilecare", model="leads", currency="GBP", time_zone="Europe/London", country="GB",
       themes=("Implants", "Invisalign", "Emergency"),
       terms={"Implants": ("dental implants cost", "single tooth implant", "implant dentist near me"),
              "Invisalign": ("invisalign price", "clear aligners consultation", "invisalign provider"),
              "Emergency": ("emergency dentist", "toothache same day", "weekend dentist")},
       junk_terms=("dental nurse jobs", "nhs dentist free", "how to pull a tooth at home", "implants turkey", "dentist salary"),
       value_per_conversion=300.0, target=38.0, monthly_budget=14000.0, weekend=0.55, conversion_name="Booking request"),
    _p(slug="b2b-saas", brand="Ledgerly", model="leads", currency="USD", time_zone="America/New_York", country="US",
       themes=("Invoicing", "Expense", "Competitor"),
       terms={"Invoicing": ("invoicing software", "automated invoicing", "invoice software small business"),
              "Expense": ("expense management software", "receipt tracking app", "employee expense tool"),
              "Competitor": ("quickbooks alternative", "xero alternative", "freshbooks competitor")},
       junk_terms=("free invoice template", "invoice template word", "what is an invoice", "accounting jobs remote", "expense report excel"),
       value_per_conversion=900.0, target=160.0, monthly_budget=36000.0, weekend=0.45, conversion_name="Demo request"),
    _p(slug="furniture-store", brand="Nordhaus", model="ecom", currency="EUR", time_zone="Europe/Amsterdam", country="NL",
       themes=("Sofas", "Tables", "Beds"),
       terms={"Sofas": ("hoekbank kopen", "bank 3 zits", "slaapbank"), "Tables": ("eettafel eiken", "ronde eettafel", "salontafel"),
              "Beds": ("boxspring 180x200", "bed met opbergruimte", "tweepersoonsbed")},
       junk_terms=("bank gratis ophalen", "tafel zelf maken", "ikea openingstijden", "meubels marktplaats", "sofa vlekken verwijderen"),
       value_per_conversion=640.0, target=6.0, monthly_budget=55000.0, weekend=1.15),
    _p(slug="language-school", brand="Parlio", model="leads", currency="EUR", time_zone="Europe/Madrid", country="ES",
       themes=("English", "German", "Business"),
       terms={"English": ("curso de ingles", "academia ingles madrid", "clases ingles online"),
              "German": ("curso de aleman", "aleman b1", "clases aleman"),
              "Business": ("ingles para empresas", "business english course", "formacion idiomas empresa")},
       junk_terms=("traductor ingles gratis", "ingles gratis online", "profesor de ingles trabajo", "duolingo", "verbos irregulares"),
       value_per_conversion=220.0, target=24.0, monthly_budget=9000.0, weekend=0.6, conversion_name="Trial lesson"),
    _p(slug="fashion-label", brand="Ostra", model="ecom", currency="GBP", time_zone="Europe/London", country="GB",
       themes=("Dresses", "Knitwear", "Outerwear"),
       terms={"Dresses": ("midi dress",), "Knitwear": ("merino jumper",), "Outerwear": ("wool coat women",)},
       junk_terms=("dress pattern free",), value_per_conversion=96.0, target=3.2, monthly_budget=30000.0, weekend=1.1),
    _p(slug="law-firm", brand="Harlow Legal", model="leads", currency="USD", time_zone="America/Chicago", country="US",
       themes=("Injury", "Divorce", "Estate"),
       terms={"Injury": ("car accident lawyer", "personal injury attorney chicago", "slip and fall lawyer"),
              "Divorce": ("divorce lawyer near me", "child custody attorney", "uncontested divorce"),
              "Estate": ("estate planning attorney", "living trust lawyer", "will attorney")},
       junk_terms=("free legal advice", "paralegal jobs", "how to file divorce yourself", "law school rankings", "legal aid"),
       value_per_conversion=1500.0, target=120.0, monthly_budget=28000.0, weekend=0.6, conversion_name="Consultation call"),
    _p(slug="travel-agency", brand="Sunward", model="ecom", currency="EUR", time_zone="Europe/Rome", country="IT",
       themes=("Greece", "Canary", "Cruises"),
       terms={"Greece": ("vacanze grecia", "creta all inclusive", "santorini pacchetto"),
              "Canary": ("tenerife offerte", "lanzarote volo hotel", "fuerteventura vacanza"),
              "Cruises": ("crociera mediterraneo", "crociera fiordi", "crociera ottobre")},
       junk_terms=("meteo tenerife", "traghetto grecia orari", "lavoro agenzia viaggi", "cosa vedere a creta", "passaporto rinnovo"),
       value_per_conversion=1850.0, target=9.0, monthly_budget=48000.0, weekend=1.05, conversion_name="Booking"),
    _p(slug="pet-supplies", brand="Pawbox", model="ecom", currency="USD", time_zone="America/Los_Angeles", country="US",
       themes=("Dog food", "Cat litter", "Toys"),
       terms={"Dog food": ("grain free dog food", "puppy food large breed", "dog food delivery"),
              "Cat litter": ("clumping cat litter", "unscented cat litter", "cat litter bulk"),
              "Toys": ("indestructible dog toys", "cat toys interactive", "puzzle feeder")},
       junk_terms=("homemade dog food recipe", "pet shop jobs", "cat litter diy", "dog toy free sample", "are grapes bad for dogs"),
       value_per_conversion=58.0, target=4.0, monthly_budget=24000.0, weekend=1.08),
    _p(slug="home-services", brand="FixRight", model="leads", currency="CAD", time_zone="America/Toronto", country="CA",
       themes=("Plumbing", "HVAC", "Electrical"),
       terms={"Plumbing": ("plumber near me", "emergency plumber toronto", "drain cleaning"),
              "HVAC": ("furnace repair", "ac installation", "heat pump quote"),
              "Electrical": ("electrician toronto", "panel upgrade cost", "ev charger installation")},
       junk_terms=("plumber apprenticeship", "how to fix a leaky faucet", "hvac course", "electrician salary ontario", "diy furnace filter"),
       value_per_conversion=420.0, target=55.0, monthly_budget=19000.0, weekend=0.7, conversion_name="Quote request"),
    _p(slug="hotel-group", brand="Alba Hotels", model="ecom", currency="EUR", time_zone="Europe/Lisbon", country="PT",
       themes=("Lisbon", "Porto", "Algarve"),
       terms={"Lisbon": ("hotel lisbon centre", "boutique hotel lisbon", "lisbon hotel with pool"),
              "Porto": ("hotel porto ribeira", "porto hotel deals", "hotel near porto station"),
              "Algarve": ("algarve resort", "family hotel algarve", "albufeira hotel")},
       junk_terms=("lisbon weather", "porto airport bus", "hotel jobs portugal", "algarve map", "hostel lisbon cheap"),
       value_per_conversion=410.0, target=8.0, monthly_budget=33000.0, weekend=1.1, conversion_name="Booking"),
    _p(slug="fitness-app", brand="Pulsefit", model="ecom", currency="USD", time_zone="America/Los_Angeles", country="US",
       themes=("Prospecting", "Lookalike", "Retargeting"),
       terms={"Prospecting": ("home workout",), "Lookalike": ("fitness app",), "Retargeting": ("pulsefit",)},
       junk_terms=("free workout",), value_per_conversion=60.0, target=2.2, monthly_budget=26000.0, weekend=1.05,
       conversion_name="Subscription"),
    _p(slug="car-rental", brand="Drivo", model="ecom", currency="EUR", time_zone="Europe/Paris", country="FR",
       themes=("Airport", "Van", "Long term"),
       terms={"Airport": ("location voiture aeroport nice", "location voiture orly", "location voiture cdg"),
              "Van": ("location utilitaire", "location camion demenagement", "location van 9 places"),
              "Long term": ("location voiture longue duree", "location voiture mois", "lld sans apport")},
       junk_terms=("permis de conduire prix", "voiture occasion", "covoiturage", "location velo", "assurance auto"),
       value_per_conversion=310.0, target=7.0, monthly_budget=38000.0, weekend=1.0, conversion_name="Reservation"),
    _p(slug="university", brand="Northbridge University", model="leads", currency="GBP", time_zone="Europe/London", country="GB",
       themes=("MBA", "Data Science", "Nursing"),
       terms={"MBA": ("online mba uk", "part time mba", "executive mba london"),
              "Data Science": ("msc data science", "data science masters online", "ai masters uk"),
              "Nursing": ("nursing degree", "adult nursing bsc", "nursing apprenticeship degree")},
       junk_terms=("free online courses", "student loan calculator", "university rankings", "lecturer jobs", "mba salary"),
       value_per_conversion=800.0, target=85.0, monthly_budget=30000.0, weekend=0.75, conversion_name="Prospectus request"),
    _p(slug="insurance-broker", brand="Covera", model="leads", currency="EUR", time_zone="Europe/Vienna", country="AT",
       themes=("Car", "Home", "Travel"),
       terms={"Car": ("kfz versicherung vergleich", "autoversicherung günstig", "kfz versicherung wechseln"),
              "Home": ("haushaltsversicherung", "eigenheimversicherung", "gebäudeversicherung"),
              "Travel": ("reiseversicherung", "reisestorno versicherung", "auslandskrankenversicherung")},
       junk_terms=("versicherung jobs", "kfz steuer rechner", "pickerl termin", "unfall was tun", "schadensmeldung formular"),
       value_per_conversion=180.0, target=32.0, monthly_budget=21000.0, weekend=0.7, conversion_name="Quote"),
    _p(slug="coffee-roaster", brand="Kaldi & Co", model="ecom", currency="AUD", time_zone="Australia/Sydney", country="AU",
       themes=("Beans", "Machines", "Subscriptions"),
       terms={"Beans": ("specialty coffee beans", "single origin coffee", "espresso beans online"),
              "Machines": ("espresso machine", "coffee grinder burr", "home barista machine"),
              "Subscriptions": ("coffee subscription", "coffee beans delivered", "monthly coffee box")},
       junk_terms=("coffee shop near me", "barista jobs", "how to make cold brew", "coffee machine repair", "starbucks menu"),
       value_per_conversion=74.0, target=4.5, monthly_budget=16000.0, weekend=1.1),
    _p(slug="skincare-brand", brand="Lumé", model="ecom", currency="USD", time_zone="America/New_York", country="US",
       themes=("Serums", "Sunscreen", "Bundles"),
       terms={"Serums": ("vitamin c serum",), "Sunscreen": ("mineral sunscreen",), "Bundles": ("skincare set",)},
       junk_terms=("diy serum",), value_per_conversion=52.0, target=2.6, monthly_budget=34000.0, weekend=1.1),
    _p(slug="solar-installer", brand="Helion Solar", model="leads", currency="AUD", time_zone="Australia/Brisbane", country="AU",
       themes=("Residential", "Battery", "Commercial"),
       terms={"Residential": ("solar panels cost", "solar installer brisbane", "6.6kw solar system"),
              "Battery": ("home battery storage", "tesla powerwall price", "solar battery rebate"),
              "Commercial": ("commercial solar", "solar for business", "solar farm installer")},
       junk_terms=("solar panel cleaning", "solar jobs", "diy solar kit", "solar calculator free", "solar rebate qld eligibility"),
       value_per_conversion=900.0, target=95.0, monthly_budget=22000.0, weekend=0.65, conversion_name="Quote request"),
]}
